-- Deposits still inside the reversal window: their part of the balance settles when the window ends.
CREATE TABLE unsettled_deposits (
  id VARCHAR PRIMARY KEY,
  account_id VARCHAR NOT NULL,
  amount_cents BIGINT NOT NULL,
  settles_at TIMESTAMP NOT NULL,                     -- end of the reversal window, on the service clock
  settled_at TIMESTAMP                               -- null until it settled
);
