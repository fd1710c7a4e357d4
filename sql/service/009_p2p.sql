-- P2P: listings users publish from their own platform inventories, each also a row of the public
-- catalogue under the same id while it is on the shelf, and the Idempotency-Keys of publishing.
-- Times are service-clock times; money is integer cents.
CREATE TABLE p2p_listings (
  id VARCHAR PRIMARY KEY,                      -- also the catalogue listing id while active
  seq BIGINT NOT NULL,                         -- creation order (pages run newest first)
  account_id VARCHAR NOT NULL,                 -- the seller
  steam_id VARCHAR NOT NULL,                   -- the seller's platform account
  asset_id VARCHAR NOT NULL,
  asset_revision VARCHAR NOT NULL,             -- the copy's revision when it was published
  market_hash_name VARCHAR NOT NULL,
  listing VARCHAR NOT NULL,                    -- the Listing JSON it has (or had) on the shelf
  status VARCHAR NOT NULL,                     -- active | trade_pending | trade_sent | verification_hold | sold
                                               -- | reconciliation_required | cancelled | delisted
  price_cents BIGINT NOT NULL,
  commission_cents BIGINT NOT NULL,
  needs_resync BOOLEAN NOT NULL,
  order_id VARCHAR,                            -- the buyer's order, once sold
  item_key VARCHAR,                            -- the order item the seller's offer delivers
  buyer_steam_id VARCHAR,
  offer_id VARCHAR,                            -- the seller's trade offer, once sent
  due_at TIMESTAMP,                            -- when the next timed step fires; null when none
  due_event VARCHAR,                           -- send | release
  end_reason VARCHAR,                          -- why a sale was cancelled (declined, trade_timeout, rolled_back, unavailable)
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);
CREATE INDEX p2p_listings_seller ON p2p_listings (account_id);
CREATE INDEX p2p_listings_asset ON p2p_listings (asset_id);

-- One row per (account, Idempotency-Key, item): the outcome the item had under that key.
CREATE TABLE p2p_publish_keys (
  account_id VARCHAR NOT NULL,
  idempotency_key VARCHAR NOT NULL,
  operational_asset_id VARCHAR NOT NULL,
  asset_revision VARCHAR NOT NULL,
  price_cents BIGINT NOT NULL,
  listing_id VARCHAR,                          -- set when the item was published
  error_status INTEGER,                        -- set when it failed (the key is then consumed for it)
  error_code VARCHAR,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (account_id, idempotency_key, operational_asset_id)
);
