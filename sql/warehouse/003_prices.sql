-- Market prices: the CS2 price snapshot file, the per-game minAsk price lists, and FX rates.
CREATE TABLE price_snapshots (
  etag VARCHAR NOT NULL,              -- ETag of the snapshot file; landed once per ETag ('' when the service sent none)
  generated_at TIMESTAMP,             -- when the service built it (X-Generated-At), null when not sent (UTC)
  fetched_at TIMESTAMP NOT NULL,      -- when the collector downloaded it (UTC)
  market_hash_name VARCHAR NOT NULL,  -- item name
  wear VARCHAR,                       -- CS2 wear name
  doppler_phase VARCHAR,              -- Doppler phase, null when not a Doppler
  min_ask_usd DECIMAL(18, 2) NOT NULL, -- cheapest current ask of the group in USD
  listed_count INTEGER NOT NULL,      -- how many listings the group has
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE snapshot_fetches (
  fetched_at TIMESTAMP NOT NULL,      -- when the collector asked for the snapshot (UTC)
  etag VARCHAR NOT NULL,              -- ETag the service answered with; (etag, fetched_at) is landed once
  status VARCHAR NOT NULL CHECK (status IN ('downloaded', 'unchanged')), -- unchanged: a 304 Not Modified
  rows BIGINT NOT NULL,               -- rows landed in price_snapshots by this fetch (0 when unchanged)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE minask_prices (
  app_id INTEGER NOT NULL,            -- platform app id of the price list's game
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read the list (UTC)
  generated_at TIMESTAMP NOT NULL,    -- when the service built the list (UTC); a group is landed once per list
  market_hash_name VARCHAR NOT NULL,  -- item name
  wear VARCHAR,                       -- CS2 wear name, null for other games
  doppler_phase VARCHAR,              -- Doppler phase, null when not a Doppler
  min_ask_usd DECIMAL(18, 2) NOT NULL, -- cheapest current ask of the group in USD
  listed_count INTEGER NOT NULL,      -- how many listings the group has
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE fx_rates (
  currency VARCHAR NOT NULL,          -- ISO 4217 code, e.g. EUR
  rate DOUBLE NOT NULL,               -- units of the currency per 1 USD
  base VARCHAR NOT NULL DEFAULT 'USD' CHECK (base = 'USD'), -- the base currency, always USD
  updated_at TIMESTAMP NOT NULL,      -- when the service last updated the rates (UTC)
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read them (UTC)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL,     -- when that batch was written (UTC)
  PRIMARY KEY (currency, updated_at)
);
