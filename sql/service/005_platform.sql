-- The simulated game platform: how linked users answer trade offers, the offers the marketplace's
-- bots send (each with the due time of its next timed step), their items, and what each platform
-- account holds. Times are service-clock times.
CREATE TABLE platform_users (
  steam_id VARCHAR PRIMARY KEY,
  offers VARCHAR NOT NULL,                     -- accept | decline | ignore
  accept_after_ms BIGINT NOT NULL,             -- how long the user takes to accept or decline
  updated_at TIMESTAMP NOT NULL
);

CREATE SEQUENCE platform_offer_ids START 5000000001;

CREATE TABLE platform_offers (
  id VARCHAR PRIMARY KEY,                      -- numeric, like the platform's trade offer ids
  order_id VARCHAR NOT NULL,
  steam_id VARCHAR NOT NULL,                   -- the recipient
  state VARCHAR NOT NULL,                      -- active | accepted | declined | expired | rolled_back
  sent_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  due_at TIMESTAMP,                            -- when the next timed step fires; null once closed
  due_event VARCHAR,                           -- accept | decline | expire; null once closed
  closed_at TIMESTAMP,                         -- when it left active
  rolled_back_at TIMESTAMP                     -- when an accepted offer was reversed
);
CREATE INDEX platform_offers_recipient ON platform_offers (steam_id);

CREATE TABLE platform_offer_items (
  offer_id VARCHAR NOT NULL,
  position INTEGER NOT NULL,
  item_key VARCHAR NOT NULL,                   -- chosen by the sender, unique per item
  app_id INTEGER NOT NULL,
  market_hash_name VARCHAR NOT NULL,
  listing_id VARCHAR NOT NULL,
  listing VARCHAR NOT NULL,                    -- the listing JSON as it was bought
  PRIMARY KEY (offer_id, position)
);

CREATE SEQUENCE platform_asset_ids START 30000000001;

CREATE TABLE platform_inventory (
  asset_id VARCHAR PRIMARY KEY,                -- one copy of an item in one account
  steam_id VARCHAR NOT NULL,
  app_id INTEGER NOT NULL,
  market_hash_name VARCHAR NOT NULL,
  listing_id VARCHAR NOT NULL,
  listing VARCHAR NOT NULL,
  item_key VARCHAR NOT NULL,
  offer_id VARCHAR NOT NULL,                   -- the accepted offer that delivered it
  acquired_at TIMESTAMP NOT NULL
);
CREATE INDEX platform_inventory_owner ON platform_inventory (steam_id);
CREATE INDEX platform_inventory_offer ON platform_inventory (offer_id);
