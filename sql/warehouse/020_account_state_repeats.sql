-- A state of an order, P2P listing or sell order read again (the feeds' overlap re-reads the last
-- minutes) is no longer dropped: byte-identical to the last state stored for its key (kind, object
-- id, updated_at; without an id or a time: its text), raw_account_state_repeats records when it was
-- read and by which load, and which stored state holds its text; one that differs (the upstream
-- changed the object without a new updated_at) is stored as another state of that key.
CREATE TABLE raw_account_state_repeats (
  kind VARCHAR NOT NULL,              -- order | p2p_listing | sell_order
  object_id VARCHAR,                  -- the object's id; null when it names none
  app_id INTEGER,                     -- game of an order's feed; null for the others
  updated_at TIMESTAMP,               -- the object's updated_at (UTC); null when unreadable
  observed_at TIMESTAMP NOT NULL,     -- when the collector read it again (UTC)
  same_load_id VARCHAR NOT NULL,      -- the raw_account_states row holding the same text: the one of
  same_md5 UHUGEINT NOT NULL,         --   this key landed by that load with that md5 (md5_number(data))
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
