-- Trading: buy orders with their items (and the idempotent response each stores), and per-account trading settings.
CREATE TABLE orders (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL,                               -- service-wide creation order, for newest-first pages
  account_id VARCHAR NOT NULL,
  app_id INTEGER NOT NULL,
  kind VARCHAR NOT NULL,                             -- order | market_buy
  steam_id VARCHAR,                                  -- where the items go
  custom_id VARCHAR,                                 -- the Idempotency-Key / custom_id sent at creation
  status VARCHAR NOT NULL,                           -- pending delivering hold completed cancelled failed
  charged_cents BIGINT NOT NULL,
  settled_paid_cents BIGINT NOT NULL,                -- part of the charge paid from settled funds
  refund_cents BIGINT,                               -- null until a refund is credited
  refund_partial BOOLEAN,
  refunded_at TIMESTAMP,
  delivery VARCHAR NOT NULL,                         -- instant up_to_12h hold pending
  expected_minutes INTEGER,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  request_hash VARCHAR,                              -- endpoint and body sent with custom_id: another request with the key is refused
  response_status INTEGER,                           -- the first response to custom_id, replayed byte for byte
  response_body VARCHAR
);
CREATE INDEX orders_account ON orders (account_id, app_id, seq);
CREATE INDEX orders_custom_id ON orders (account_id, custom_id);

CREATE TABLE order_items (
  order_id VARCHAR NOT NULL,
  position INTEGER NOT NULL,
  listing_id VARCHAR NOT NULL,
  listing VARCHAR NOT NULL,                          -- the Listing JSON as bought (re-listed on a return)
  market_hash_name VARCHAR NOT NULL,
  price_cents BIGINT NOT NULL,
  listing_delivery VARCHAR NOT NULL,                 -- instant up_to_12h hold, as listed
  status VARCHAR NOT NULL,                           -- delivering hold delivered returned
  tradable_at TIMESTAMP,                             -- end of the trade lock of a held item
  return_reason VARCHAR,
  offer_id VARCHAR,
  offer_finished_at TIMESTAMP,
  send_at TIMESTAMP,                                 -- when the offer is due to be sent (seller's delay, claim, autoclaim)
  give_up_at TIMESTAMP,                              -- when an unsent item is returned (seller never sent, claim window over)
  PRIMARY KEY (order_id, position)
);

CREATE TABLE trading_settings (
  account_id VARCHAR PRIMARY KEY,
  kyc_threshold_cents BIGINT                         -- cumulative purchases above it need verification; null: none
);
