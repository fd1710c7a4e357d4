-- Every line of a downloaded CS2 snapshot file typed leniently as a PriceRow; a line without a
-- market_hash_name names no group and is in rejected_payloads. A line byte-identical to its
-- group's last line was recorded as a repeat (raw_price_snapshot_repeats): it is typed from the
-- text of the line it repeats, with its own file's envelope. The repeats are joined to the stored
-- lines before any text is typed, so a filter on the envelope (an increment's `ingested_at`) keeps
-- DuckDB from parsing the lines no selected row needs.
WITH lines AS (
  SELECT etag, generated_at, fetched_at, load_id, ingested_at, data FROM raw_price_snapshots
  UNION ALL
  SELECT s.etag, s.generated_at, s.fetched_at, s.load_id, s.ingested_at, d.data
  FROM raw_price_snapshot_repeats s
  JOIN raw_price_snapshots d ON d.etag = s.same_etag AND d.fetched_at = s.same_fetched_at AND d.line = s.same_line
)
SELECT r.etag, r.generated_at, r.fetched_at, r.load_id, r.ingested_at,
       {{typed_columns(price_row, r.j, r.keys)}},
       {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
  FROM lines r
  WHERE ({{rejection(price_row, r.data)}}) IS NULL
) r
