-- The positions of the stream events moved to the lake, per event log, as ranges without a gap
-- (src/warehouse/lake/event-ranges.ts): an event at or below its log's watermark whose position
-- falls in one landed before and moved, so it is skipped without reading the lake. Written in the
-- transaction of the move that deletes those events from the file.
CREATE TABLE lake_event_ranges (
  log VARCHAR NOT NULL,               -- an event id without its trailing digits (as event_watermarks.log)
  lo BIGINT NOT NULL,                 -- the first position of the range
  hi BIGINT NOT NULL                  -- the last: every position from lo to hi is an event in the lake
);

-- The lake's event files moved before this table existed: the next open records their ranges
-- (reading them once) and drops this table.
CREATE TABLE lake_event_ranges_pending AS
SELECT path FROM lake_files WHERE relation = 'raw_listing_events';
