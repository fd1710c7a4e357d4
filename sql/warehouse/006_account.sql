-- The account side: the key owner's balance ledger and every state its orders, P2P listings and
-- Instant Sell orders were seen in, landed by the `account` source (one row per ledger entry; one
-- row per object and change).
CREATE TABLE account_transactions (
  transaction_id VARCHAR NOT NULL,    -- ledger row id (GET /transactions `id`); landed once
  type VARCHAR NOT NULL,              -- purchase, refund, sale, deposit, withdrawal, bonus, fee, adjustment
  amount_usd DECIMAL(18, 2) NOT NULL, -- signed amount: credits positive, debits negative
  balance_after_usd DECIMAL(18, 2) NOT NULL, -- the balance right after this row
  order_id VARCHAR,                   -- the order (or sell order / P2P sale) the row belongs to, null when none
  description VARCHAR NOT NULL,       -- the service's description of the movement
  created_at TIMESTAMP NOT NULL,      -- when the service posted the row, service clock (UTC)
  observed_at TIMESTAMP NOT NULL,     -- when the collector first read it (UTC)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE account_states (
  kind VARCHAR NOT NULL CHECK (kind IN ('order', 'p2p_listing', 'sell_order')), -- what the object is
  object_id VARCHAR NOT NULL,         -- order_id, P2P listing id or sell order id
  app_id INTEGER,                     -- game of an order; null for P2P listings and sell orders
  status VARCHAR NOT NULL,            -- the object's status in this state, e.g. delivering, hold, completed, active, sold
  updated_at TIMESTAMP NOT NULL,      -- the object's updated_at in this state, service clock (UTC); (kind, object_id, updated_at) is landed once
  observed_at TIMESTAMP NOT NULL,     -- when the collector first read this state (UTC)
  body JSON NOT NULL,                 -- the object exactly as the API answered it in this state
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
