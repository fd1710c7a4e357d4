-- Prices, FX and the account land raw as well: each row as the upstream sent it, with its envelope,
-- typed afterwards by the views of the same names (see sql/warehouse/views/, with the typings of src/warehouse/typing/typed-prices.ts and
-- typed-account.ts), so a malformed row or a new field can no longer fail a write. The typed tables
-- of the former layout stay, renamed, as a legacy source the views read too.
ALTER TABLE price_snapshots RENAME TO legacy_price_snapshots;
ALTER TABLE minask_prices RENAME TO legacy_minask_prices;
ALTER TABLE fx_rates RENAME TO legacy_fx_rates;
ALTER TABLE account_transactions RENAME TO legacy_account_transactions;
ALTER TABLE account_states RENAME TO legacy_account_states;

CREATE TABLE raw_price_snapshots (
  etag VARCHAR NOT NULL,              -- ETag of the snapshot file; a file is landed once per ETag ('' when none was sent)
  generated_at TIMESTAMP,             -- when the service built it (X-Generated-At), null when not sent (UTC)
  fetched_at TIMESTAMP NOT NULL,      -- when the collector downloaded it (UTC)
  line BIGINT NOT NULL,               -- the line's place among the file's readable lines (an unreadable one: its line number)
  data VARCHAR,                       -- the line as sent (a PriceRow's JSON); null when it is not UTF-8
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE raw_minask_prices (
  app_id INTEGER NOT NULL,            -- platform app id of the price list's game
  generated_at TIMESTAMP,             -- the list's generated_at (UTC); a list is landed once per build; null when unreadable
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read the list (UTC)
  position INTEGER NOT NULL,          -- the row's place in the list, pages in order
  data VARCHAR NOT NULL,              -- the row as sent (a PriceRow's JSON)
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE raw_fx_rates (
  updated_at TIMESTAMP,               -- the answer's updated_at (UTC); landed once per update; null when unreadable
  fetched_at TIMESTAMP NOT NULL,      -- when the collector read it (UTC)
  data VARCHAR NOT NULL,              -- the answer of GET /currency as sent ({base, rates, updated_at})
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE raw_account_transactions (
  transaction_id VARCHAR,             -- the row's id when it is a string (landed once per id), else null (landed once per text)
  observed_at TIMESTAMP NOT NULL,     -- when the collector first read it (UTC)
  data VARCHAR NOT NULL,              -- the ledger row as GET /transactions sent it
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

CREATE TABLE raw_account_states (
  kind VARCHAR NOT NULL,              -- order | p2p_listing | sell_order: the change feed it came from
  object_id VARCHAR,                  -- order_id, P2P listing id or sell order id; null when the object names none
  app_id INTEGER,                     -- game of an order's feed; null for the others
  updated_at TIMESTAMP,               -- the object's updated_at (UTC); (kind, object_id, updated_at) is landed once; null when unreadable
  observed_at TIMESTAMP NOT NULL,     -- when the collector first read this state (UTC)
  data VARCHAR NOT NULL,              -- the object as the API answered it in this state
  load_id VARCHAR NOT NULL,           -- batch that landed the row
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
