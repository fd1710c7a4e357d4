-- loads loses its primary key. A load's id is a random UUID made by the batch that lands it, once,
-- so the key guarded nothing, and its index cost memory that grew with the daemon's life: each new
-- load's random key loads another path of the index into memory (a month of loads, 4.5M rows:
-- 102 MiB of index in memory after 1,500 writes). No read looks a load up through it (they join or
-- scan). Same columns and rows, in the order they landed.
CREATE TABLE loads_unindexed (
  load_id VARCHAR NOT NULL,           -- id of the batch (a random UUID); every row it landed carries it
  source VARCHAR NOT NULL,            -- collector source, e.g. stream, poll:730, sweep:570, snapshot, prices:730, fx
  started_at TIMESTAMP NOT NULL,      -- when the write transaction that committed the batch began (UTC)
  rows BIGINT NOT NULL,               -- rows the batch landed (inserted, or updated for gaps); live_listings changes not counted
  upstream_offset_ms BIGINT,          -- the upstream's clock minus the collector's while it was collected (ms); null: not measured
  account_id VARCHAR                  -- the account of an account source's load; null for market sources
);

INSERT INTO loads_unindexed
SELECT load_id, source, started_at, rows, upstream_offset_ms, account_id FROM loads ORDER BY started_at, load_id;
DROP TABLE loads;
ALTER TABLE loads_unindexed RENAME TO loads;
