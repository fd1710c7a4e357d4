-- Listings as the collectors see them: the stream's event log, what polls and sweeps observed,
-- what sweeps found gone, and the live set the collectors believe in now.
CREATE TABLE listing_events (
  event_id VARCHAR PRIMARY KEY,       -- SSE event id; a replayed event is not landed twice
  kind VARCHAR NOT NULL CHECK (kind IN ('new', 'gone')), -- new: the listing appeared; gone: it left
  listing_id VARCHAR NOT NULL,        -- listing id; belongs to its game
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game (730 CS2)
  market_hash_name VARCHAR,           -- item name; null for gone events (as are all listing fields below)
  wear VARCHAR,                       -- CS2 wear name, null for other games
  doppler_phase VARCHAR,              -- Doppler phase, null when not a Doppler
  float_value DOUBLE,                 -- CS2 float, null for other games
  paint_seed INTEGER,                 -- CS2 paint seed, null for other games
  stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[], -- applied stickers
  price_usd DECIMAL(18, 2),           -- asking price in USD
  category VARCHAR,                   -- item category, e.g. Rifle
  rarity VARCHAR,                     -- item rarity, e.g. Covert
  image VARCHAR,                      -- image URL
  inspect_link VARCHAR,               -- inspect link, when the game has one
  tradable BOOLEAN,                   -- false while a platform trade lock holds
  tradable_at TIMESTAMP,              -- when the trade lock ends (UTC)
  delivery VARCHAR,                   -- instant | up_to_12h | hold
  refund_percent DOUBLE,              -- share refundable on a reversal, 0-100; null when unpublished
  listed_at TIMESTAMP,                -- when the item entered the catalogue (UTC)
  received_at TIMESTAMP NOT NULL,     -- when the collector received the event (UTC)
  load_id VARCHAR NOT NULL,           -- batch that landed the row (loads.load_id)
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE listing_observations (
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game
  listing_id VARCHAR NOT NULL,        -- listing id; belongs to its game
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
  observed_at TIMESTAMP NOT NULL,     -- when the collector saw the listing (UTC)
  via VARCHAR NOT NULL CHECK (via IN ('poll', 'sweep', 'catch_up')), -- which pass saw it
  pass_id VARCHAR NOT NULL,           -- the sweep id or poll window; (via, pass_id, listing_id) is landed once
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE listing_gone (
  app_id INTEGER NOT NULL,            -- platform app id of the listing's game
  listing_id VARCHAR NOT NULL,        -- listing a sweep or catch-up no longer found
  detected_at TIMESTAMP NOT NULL,     -- when the collector concluded it was gone (UTC); (via, listing_id, detected_at) is landed once
  via VARCHAR NOT NULL CHECK (via IN ('sweep', 'catch_up')), -- which pass found it gone
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE live_listings (
  listing_id VARCHAR PRIMARY KEY,     -- listing id; belongs to its game
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
