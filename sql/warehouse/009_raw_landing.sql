-- The warehouse lands what the upstream sends: stream events land raw (their data as the stream
-- sent it, with the envelope), and typing happens in views and models over them (see
-- src/warehouse/typing/views.ts): one malformed or drifted payload can no longer fail a write. The typed
-- tables of the former layout stay, renamed, as a legacy source: listing_events reads both.
ALTER TABLE listing_events RENAME TO legacy_listing_events;
-- The live set is now a view over what landed; the table the landing code kept is left as it was.
ALTER TABLE live_listings RENAME TO legacy_live_listings;

CREATE TABLE raw_listing_events (
  event_id VARCHAR NOT NULL,          -- SSE event id (opaque); landed once (see event_watermarks)
  kind VARCHAR NOT NULL,              -- the SSE event type: new | gone
  app_id INTEGER NOT NULL,            -- platform app id of the stream's game (730 CS2)
  listing_id VARCHAR,                 -- listing id when the collector already knew it, else null (read from data)
  data VARCHAR,                       -- the event's data exactly as sent (a listing's JSON, {"id":…}); null when not UTF-8
  received_at TIMESTAMP NOT NULL,     -- when the collector received the event (UTC)
  load_id VARCHAR NOT NULL,           -- batch that landed the row (loads.load_id)
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

-- What the collector noticed in the payloads it landed, per source, counted as they land.
CREATE TABLE payload_fields (
  source VARCHAR NOT NULL,            -- collector source, e.g. stream
  field VARCHAR NOT NULL,             -- a top-level key of the payloads
  first_seen_at TIMESTAMP NOT NULL,   -- when a payload with it was first received (UTC)
  first_load_id VARCHAR NOT NULL,     -- the batch that first landed it
  payloads BIGINT NOT NULL,           -- landed payloads that carry it
  PRIMARY KEY (source, field)
);

CREATE TABLE payload_checks (
  source VARCHAR PRIMARY KEY,         -- collector source, e.g. stream
  payloads BIGINT NOT NULL,           -- payloads landed
  rejected BIGINT NOT NULL,           -- of which could not be typed at all (see rejected_payloads)
  partly_typed BIGINT NOT NULL,       -- of which typed with a note: a field missing or not cast (null)
  updated_at TIMESTAMP NOT NULL       -- when the batch that last counted was written (UTC)
);
