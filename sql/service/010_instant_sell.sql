-- Instant Sell: quotes (binding amounts until they expire), sell orders with their items and bot
-- offers, and whose offers behaviour answers a platform offer (a seller asked for their items by a
-- bot answers it, not the bot). Times are service-clock times; money is integer cents.
ALTER TABLE platform_offers ADD COLUMN answerer_steam_id VARCHAR;  -- null: the recipient answers

CREATE TABLE sell_quotes (
  id VARCHAR PRIMARY KEY,
  account_id VARCHAR NOT NULL,
  app_id INTEGER NOT NULL,
  steam_id VARCHAR NOT NULL,                   -- owner of the quoted inventory (from the trade URL)
  quote VARCHAR NOT NULL,                      -- the SellQuote JSON as answered
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL
);

CREATE SEQUENCE sell_order_seq START 1;

CREATE TABLE sell_orders (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL,                         -- creation order, for newest-first pages
  account_id VARCHAR NOT NULL,
  external_id VARCHAR,                         -- idempotency: a replay answers this order
  quote_id VARCHAR NOT NULL,                   -- a quote becomes at most one order
  app_id INTEGER NOT NULL,
  steam_id VARCHAR NOT NULL,                   -- the seller's platform account
  status VARCHAR NOT NULL,                     -- pending offer_sent received completed failed
  min_total_cents BIGINT,
  failure_reason VARCHAR,
  items VARCHAR NOT NULL,                      -- JSON: asset id, name, cents, status, offer id per item
  offers VARCHAR NOT NULL,                     -- JSON: bot, trade offer id, status per bot offer
  credited_cents BIGINT NOT NULL,              -- posted to the balance as pending funds
  settled_cents BIGINT NOT NULL,               -- part of the credit that has settled
  send_at TIMESTAMP,                           -- when the bots send their offers; null once sent
  settles_at TIMESTAMP,                        -- end of the trade protection; null until received
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);
CREATE INDEX sell_orders_account ON sell_orders (account_id, seq);
CREATE INDEX sell_orders_quote ON sell_orders (quote_id);
