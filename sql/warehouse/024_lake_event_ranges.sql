-- The positions of the stream events moved to the lake, per event log and landing day
-- (src/warehouse/lake/event-ranges.ts): an event at or below its log's watermark is looked up in
-- the lake's files of the days whose range holds its position, and in none when no range does, so
-- a replay reads what it replays, never the whole history. Written in the transaction of the move
-- that deletes those events from the file.
CREATE TABLE lake_event_ranges (
  log VARCHAR NOT NULL,               -- an event id without its trailing digits (as event_watermarks.log)
  day DATE NOT NULL,                  -- the UTC day the events landed (ingested_at): their lake partition
  lo BIGINT NOT NULL,                 -- the lowest position of the log's events of that day in the lake
  hi BIGINT NOT NULL                  -- the highest
);

-- The lake's event files moved before this table existed: the next open records their ranges
-- (reading them once) and drops this table.
CREATE TABLE lake_event_ranges_pending AS
SELECT path FROM lake_files WHERE relation = 'raw_listing_events';
