-- Bookkeeping of the landing tables: one row per committed batch, the collectors' progress
-- markers (written in the same transaction as the rows they cover) and the periods a collector
-- knows it may have missed.
CREATE TABLE loads (
  load_id VARCHAR PRIMARY KEY,        -- id of the batch; every row it landed carries it
  source VARCHAR NOT NULL,            -- collector source, e.g. stream, poll:730, sweep:570, snapshot, prices:730, fx
  started_at TIMESTAMP NOT NULL,      -- when the write transaction that committed the batch began (UTC)
  rows BIGINT NOT NULL                -- rows the batch landed (inserted, or updated for gaps); live_listings changes not counted
);

CREATE TABLE collector_state (
  source VARCHAR NOT NULL,            -- collector source that owns the marker
  key VARCHAR NOT NULL,               -- marker name, e.g. last_event_id, watermark, etag
  value VARCHAR NOT NULL,             -- marker value, opaque to the warehouse
  updated_at TIMESTAMP NOT NULL,      -- when the marker was last written (UTC)
  PRIMARY KEY (source, key)
);

CREATE TABLE ingest_gaps (
  gap_id VARCHAR PRIMARY KEY,         -- source:kind:started_at; re-sending the same gap updates it (e.g. to close it)
  source VARCHAR NOT NULL,            -- collector source the gap belongs to
  kind VARCHAR NOT NULL,              -- resync | watchdog_reconnect | reconnect | catch_up | restart | ...
  started_at TIMESTAMP NOT NULL,      -- start of the period that may be incomplete (UTC)
  ended_at TIMESTAMP,                 -- end of that period; null while it is still open (UTC)
  rows BIGINT NOT NULL,               -- rows the collector recovered for the period (e.g. by a catch-up)
  detail VARCHAR NOT NULL,            -- human-readable explanation
  load_id VARCHAR NOT NULL,           -- batch that last wrote the gap
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
