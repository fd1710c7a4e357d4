-- storage: v1.2.0
-- The raw text of every landing table compressed with zstd, in files of DuckDB's storage version
-- 1.2 or later (new warehouse files are made so; an older file keeps its version and skips this
-- migration, since there zstd would store the column uncompressed). The text is most of what
-- lands: 300,000 stream events landed with their applies in a file of 25.9 MiB against 57.3 with
-- DuckDB's own choice (FSST), in 6.1 s against 7.0-7.8 (test/bench/README.md, "ingest"). Same
-- columns and rows, in the order they landed.
CREATE TABLE raw_account_states__zstd (
  kind VARCHAR NOT NULL,
  object_id VARCHAR,
  app_id INTEGER,
  updated_at TIMESTAMP,
  observed_at TIMESTAMP NOT NULL,
  data VARCHAR NOT NULL USING COMPRESSION zstd,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_account_states__zstd SELECT * FROM raw_account_states__hot;
DROP TABLE raw_account_states__hot;
ALTER TABLE raw_account_states__zstd RENAME TO raw_account_states__hot;

CREATE TABLE raw_account_transactions__zstd (
  transaction_id VARCHAR,
  observed_at TIMESTAMP NOT NULL,
  data VARCHAR NOT NULL USING COMPRESSION zstd,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_account_transactions__zstd SELECT * FROM raw_account_transactions__hot;
DROP TABLE raw_account_transactions__hot;
ALTER TABLE raw_account_transactions__zstd RENAME TO raw_account_transactions__hot;

CREATE TABLE raw_fx_rates__zstd (
  updated_at TIMESTAMP,
  fetched_at TIMESTAMP NOT NULL,
  data VARCHAR NOT NULL USING COMPRESSION zstd,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_fx_rates__zstd SELECT * FROM raw_fx_rates__hot;
DROP TABLE raw_fx_rates__hot;
ALTER TABLE raw_fx_rates__zstd RENAME TO raw_fx_rates__hot;

CREATE TABLE raw_listing_events__zstd (
  event_id VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  app_id INTEGER NOT NULL,
  listing_id VARCHAR,
  data VARCHAR USING COMPRESSION zstd,
  received_at TIMESTAMP NOT NULL,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_listing_events__zstd SELECT * FROM raw_listing_events__hot;
DROP TABLE raw_listing_events__hot;
ALTER TABLE raw_listing_events__zstd RENAME TO raw_listing_events__hot;

CREATE TABLE raw_listing_observations__zstd (
  via VARCHAR NOT NULL,
  pass_id VARCHAR NOT NULL,
  page INTEGER,
  item INTEGER,
  listing_id VARCHAR,
  app_id INTEGER NOT NULL,
  data VARCHAR USING COMPRESSION zstd,
  observed_at TIMESTAMP NOT NULL,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_listing_observations__zstd SELECT * FROM raw_listing_observations__hot;
DROP TABLE raw_listing_observations__hot;
ALTER TABLE raw_listing_observations__zstd RENAME TO raw_listing_observations__hot;

CREATE TABLE raw_minask_prices__zstd (
  app_id INTEGER NOT NULL,
  generated_at TIMESTAMP,
  fetched_at TIMESTAMP NOT NULL,
  position INTEGER NOT NULL,
  data VARCHAR NOT NULL USING COMPRESSION zstd,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_minask_prices__zstd SELECT * FROM raw_minask_prices__hot;
DROP TABLE raw_minask_prices__hot;
ALTER TABLE raw_minask_prices__zstd RENAME TO raw_minask_prices__hot;

CREATE TABLE raw_price_snapshots__zstd (
  etag VARCHAR NOT NULL,
  generated_at TIMESTAMP,
  fetched_at TIMESTAMP NOT NULL,
  line BIGINT NOT NULL,
  data VARCHAR USING COMPRESSION zstd,
  load_id VARCHAR NOT NULL,
  ingested_at TIMESTAMP NOT NULL
);
INSERT INTO raw_price_snapshots__zstd SELECT * FROM raw_price_snapshots__hot;
DROP TABLE raw_price_snapshots__hot;
ALTER TABLE raw_price_snapshots__zstd RENAME TO raw_price_snapshots__hot;
