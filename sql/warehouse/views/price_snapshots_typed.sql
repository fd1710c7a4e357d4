-- Every line of a downloaded CS2 snapshot file typed leniently as a PriceRow; a line without a
-- market_hash_name names no group and is in rejected_payloads.
SELECT r.etag, r.generated_at, r.fetched_at, r.load_id, r.ingested_at,
       {{typed_columns(price_row, r.j, r.keys)}},
       {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_price_snapshots r
  WHERE ({{rejection(price_row, r.data)}}) IS NULL
) r
