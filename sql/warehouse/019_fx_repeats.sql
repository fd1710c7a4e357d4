-- An answer of GET /currency fetched again for an update that landed already is no longer dropped:
-- byte-identical to the update's last stored answer, raw_fx_rate_repeats records when it was fetched
-- and by which load, and which stored answer holds its text; one that differs (the upstream changed
-- rates without a new updated_at) is stored as a new answer of that update.
CREATE TABLE raw_fx_rate_repeats (
  updated_at TIMESTAMP NOT NULL,      -- the answer's updated_at (UTC)
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read it (UTC)
  same_fetched_at TIMESTAMP NOT NULL, -- the raw_fx_rates row holding the same text: (updated_at, same_fetched_at)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
