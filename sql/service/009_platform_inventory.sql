-- User inventories on the simulated platform: copies granted by the sandbox, a revision per copy that
-- changes whenever the copy does, copies held out of their owner's inventory while a user's own
-- trade offer carries them, offers sent by users (not only by the marketplace's bots), and the
-- state of each account's inventory as the platform shows it (ready, private, trade banned).
ALTER TABLE platform_inventory ADD COLUMN revision VARCHAR;
ALTER TABLE platform_inventory ADD COLUMN in_offer_id VARCHAR;   -- the open user offer carrying it; null at home
UPDATE platform_inventory SET revision = md5('revision:' || asset_id);

ALTER TABLE platform_offers ADD COLUMN sender_steam_id VARCHAR;  -- null: the marketplace's bots sent it
ALTER TABLE platform_offer_items ADD COLUMN asset_id VARCHAR;    -- a user offer: the sender's copy it carries

CREATE TABLE platform_inventory_states (
  steam_id VARCHAR PRIMARY KEY,
  visibility VARCHAR NOT NULL,                 -- ready | private | trade_banned
  read_started_at TIMESTAMP,                   -- the first read of the current inventory; null before it
  updated_at TIMESTAMP NOT NULL
);
