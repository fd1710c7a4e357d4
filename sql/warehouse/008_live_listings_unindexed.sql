-- live_listings loses its primary key: every write replaces a listing's row by a delete and a plain
-- insert (never ON CONFLICT), so the key's index only cost work on every write and a rewrite at
-- every checkpoint, which a stream burst pays every few writes. Same columns and rows.
CREATE TABLE live_listings_unindexed (
  listing_id VARCHAR NOT NULL,        -- listing id; belongs to its game; one row per listing (the landing code replaces it)
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game
  market_hash_name VARCHAR NOT NULL,  -- item name
  wear VARCHAR,                       -- CS2 wear name, null for other games
  doppler_phase VARCHAR,              -- Doppler phase, null when not a Doppler
  float_value DOUBLE,                 -- CS2 float, null for other games
  paint_seed INTEGER,                 -- CS2 paint seed, null for other games
  stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[] NOT NULL, -- applied stickers
  price_usd DECIMAL(18, 2) NOT NULL,  -- asking price in USD
  category VARCHAR NOT NULL,          -- item category
  rarity VARCHAR NOT NULL,            -- item rarity
  image VARCHAR NOT NULL,             -- image URL
  inspect_link VARCHAR,               -- inspect link, when the game has one
  tradable BOOLEAN NOT NULL,          -- false while a platform trade lock holds
  tradable_at TIMESTAMP,              -- when the trade lock ends (UTC)
  delivery VARCHAR NOT NULL,          -- instant | up_to_12h | hold
  refund_percent DOUBLE,              -- share refundable on a reversal, 0-100; null when unpublished
  listed_at TIMESTAMP,                -- when the item entered the catalogue (UTC)
  first_seen_at TIMESTAMP NOT NULL,   -- when the collectors first saw this listing live (UTC)
  last_seen_at TIMESTAMP NOT NULL,    -- when they last saw it live (UTC)
  last_event_id VARCHAR,              -- last stream event applied to the row; null when only polls or sweeps saw it
  source VARCHAR NOT NULL,            -- collector source that last wrote the row
  load_id VARCHAR NOT NULL,           -- batch that last wrote the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

INSERT INTO live_listings_unindexed SELECT * FROM live_listings;
DROP TABLE live_listings;
ALTER TABLE live_listings_unindexed RENAME TO live_listings;
