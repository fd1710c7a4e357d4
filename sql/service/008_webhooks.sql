-- Webhooks: the endpoints of each account with their health, and the durable delivery queue.
CREATE TABLE webhook_endpoints (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL,                               -- creation order, for listing oldest first
  account_id VARCHAR NOT NULL,
  url VARCHAR NOT NULL,                              -- absolute HTTPS URL, checked by the SSRF guard
  events VARCHAR NOT NULL,                           -- JSON array of subscribed event types
  enabled BOOLEAN NOT NULL,                          -- false after 50 consecutive failures or by PATCH
  description VARCHAR NOT NULL,
  secret VARCHAR NOT NULL,                           -- the signing secret (svc_whsec_…), needed to sign each send
  last_success_at TIMESTAMP,
  last_failure_at TIMESTAMP,
  last_error VARCHAR,
  consecutive_failures INTEGER NOT NULL,
  created_at TIMESTAMP NOT NULL
);

-- The queue: one row per (event, endpoint), never changed after it is written.
CREATE TABLE webhook_deliveries (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL,                               -- queue order, for newest-first pages
  webhook_id VARCHAR NOT NULL,
  event_id VARCHAR NOT NULL,                         -- the envelope's id: stable per (order, state)
  event_type VARCHAR NOT NULL,
  payload VARCHAR NOT NULL,                          -- the exact body sent (signed at send time)
  created_at TIMESTAMP NOT NULL                      -- also when the first attempt is due
);

-- Each delivery's state after each change (an attempt, a re-arm), appended: the highest version is
-- the current one; a delivery without a row is pending with no attempt made, due at its created_at.
CREATE TABLE webhook_delivery_states (
  delivery_id VARCHAR NOT NULL,
  webhook_id VARCHAR NOT NULL,
  version INTEGER NOT NULL,                          -- 1, 2, … per delivery
  status VARCHAR NOT NULL,                           -- pending delivered failed
  attempts INTEGER NOT NULL,                         -- attempts of the current budget of 12
  next_attempt_at TIMESTAMP,                         -- service clock; null unless pending
  last_attempt_at TIMESTAMP,
  response_status INTEGER,
  response_body VARCHAR,                             -- first 1024 characters of the last answer
  last_error VARCHAR,
  delivered_at TIMESTAMP
);
