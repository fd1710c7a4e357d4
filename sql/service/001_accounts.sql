-- Accounts, their API keys (only SHA-256 hashes of keys are stored) and the balance ledger.
CREATE TABLE service_meta (
  key VARCHAR PRIMARY KEY,
  value VARCHAR NOT NULL
);

CREATE TABLE accounts (
  id VARCHAR PRIMARY KEY,
  label VARCHAR NOT NULL,
  status VARCHAR NOT NULL DEFAULT 'active',          -- active | restricted
  balance_usd DECIMAL(18, 2) NOT NULL DEFAULT 0,
  settled_usd DECIMAL(18, 2) NOT NULL DEFAULT 0,     -- part of the balance outside the reversal window
  autoclaim BOOLEAN NOT NULL DEFAULT false,
  app_ids INTEGER[] NOT NULL,                        -- games this account's keys may read
  instant_sell BOOLEAN NOT NULL DEFAULT false,
  external_buy BOOLEAN NOT NULL DEFAULT false,
  steam_id VARCHAR,                                  -- linked platform account, null when none
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
  id VARCHAR PRIMARY KEY,                            -- the public part of the key, after svc_pub_
  account_id VARCHAR NOT NULL,
  key_hash VARCHAR NOT NULL,                         -- hex SHA-256 of the whole raw key
  label VARCHAR NOT NULL,
  trading BOOLEAN NOT NULL DEFAULT false,
  ip_allowlist VARCHAR[] NOT NULL,                   -- CIDRs; empty means any address
  created_at TIMESTAMP NOT NULL,
  revoked_at TIMESTAMP
);

CREATE TABLE ledger (
  id VARCHAR PRIMARY KEY,
  account_id VARCHAR NOT NULL,
  seq BIGINT NOT NULL,                               -- per-account order, newest highest
  type VARCHAR NOT NULL,                             -- purchase refund sale deposit withdrawal bonus fee adjustment
  amount_usd DECIMAL(18, 2) NOT NULL,
  balance_after_usd DECIMAL(18, 2) NOT NULL,
  order_id VARCHAR,
  description VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE INDEX ledger_account ON ledger (account_id, seq);
