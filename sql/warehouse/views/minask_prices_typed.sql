-- Every row of a game's minAsk list typed leniently as a PriceRow; a row without a
-- market_hash_name is in rejected_payloads.
SELECT r.app_id, r.fetched_at, r.generated_at, r.load_id, r.ingested_at,
       {{typed_columns(price_row, r.j, r.keys)}},
       {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_minask_prices r
  WHERE ({{rejection(price_row, r.data)}}) IS NULL
) r
