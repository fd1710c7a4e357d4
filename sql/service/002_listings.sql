-- The live catalogue: one row per listing that can be bought now. Rows leave when the listing does.
CREATE TABLE listings (
  id VARCHAR NOT NULL,
  app_id INTEGER NOT NULL,
  market_hash_name VARCHAR NOT NULL,
  wear VARCHAR,
  doppler_phase VARCHAR,
  float_value DOUBLE,
  paint_seed INTEGER,
  stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[] NOT NULL,
  price_usd DECIMAL(18, 2) NOT NULL,
  category VARCHAR NOT NULL,
  rarity VARCHAR NOT NULL,
  image VARCHAR NOT NULL,
  inspect_link VARCHAR,
  tradable BOOLEAN NOT NULL,
  tradable_at TIMESTAMP,
  delivery VARCHAR NOT NULL,                          -- instant | up_to_12h | hold
  refund_percent DOUBLE,
  listed_at TIMESTAMP
);
-- Not unique on purpose: a re-listing deletes and re-inserts the same id in one transaction.
CREATE INDEX listings_id ON listings (id);
