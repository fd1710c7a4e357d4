-- The live set kept current as data lands: one row per listing ever seen, with its last departure
-- and, while it is live, its stay (first and last sighting, the winning sighting's fields, its
-- last stream event). The batch writer brings it up to date after each landing, in a transaction
-- of its own, from the loads still pending; the view live_listings reads it merged with those
-- pending loads, so it is exact at any moment (see src/warehouse/live-set/live-set.ts).
CREATE TABLE live_set_state (
  listing_id VARCHAR NOT NULL,        -- listing id; belongs to its game
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game
  left_at TIMESTAMP,                  -- its last departure (gone event, sweep or catch-up verdict); null when none
  left_pos BIGINT,                    -- that departure's stream log position; null for a verdict
  live BOOLEAN NOT NULL,              -- a sighting after the departure, with its fields, makes it live
  first_seen_at TIMESTAMP,            -- the stay's first sighting (UTC); null when not live
  first_pos BIGINT,                   -- the highest log position among the stay's sightings of that instant
  last_seen_at TIMESTAMP,             -- the stay's winning (latest) sighting (UTC)
  seen_pos BIGINT,                    -- its log position; null for an observation
  event_id VARCHAR,                   -- its stream event; null for an observation
  via VARCHAR,                        -- poll | sweep | catch_up for an observation
  pass_id VARCHAR,                    -- the observation's pass
  last_event_at TIMESTAMP,            -- the stay's last stream event
  last_event_pos BIGINT,
  last_event_id VARCHAR,
  market_hash_name VARCHAR,           -- the winning sighting's fields (listing_observations' columns)
  wear VARCHAR,
  doppler_phase VARCHAR,
  float_value DOUBLE,
  paint_seed INTEGER,
  stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[],
  price_usd DECIMAL(18, 2),
  category VARCHAR,
  rarity VARCHAR,
  image VARCHAR,
  inspect_link VARCHAR,
  tradable BOOLEAN,
  tradable_at TIMESTAMP,
  delivery VARCHAR,
  refund_percent DOUBLE,
  listed_at TIMESTAMP,
  load_id VARCHAR,                    -- batch that landed the winning sighting
  ingested_at TIMESTAMP               -- when that batch was written (UTC)
);

-- Loads whose rows the state does not cover yet: added by each landing in its transaction, removed
-- by the state's refresh in the same transaction as the rows they bring.
CREATE TABLE live_set_pending (
  load_id VARCHAR NOT NULL,           -- loads.load_id
  ingested_at TIMESTAMP NOT NULL      -- its rows' ingested_at
);

-- The newest listed_at of a `new` stream event landed per game (the resync's catch-up starts there).
CREATE TABLE live_set_marks (
  app_id INTEGER PRIMARY KEY,
  newest_listed_at TIMESTAMP
);

-- What landed before: its loads are pending, so the first refresh builds the state from them.
INSERT INTO live_set_pending SELECT load_id, started_at FROM loads;
