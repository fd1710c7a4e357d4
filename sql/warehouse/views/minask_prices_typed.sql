-- Every row of a game's minAsk list typed leniently as a PriceRow; a row without a
-- market_hash_name names no group and is in rejected_payloads. A row byte-identical to its group's
-- last row was recorded as a repeat (raw_minask_price_repeats): it reads the typed row of the row
-- holding that text, with its own list's envelope.
WITH typed AS (
  SELECT r.app_id, r.fetched_at, r.generated_at, r.position, r.load_id, r.ingested_at,
         {{typed_columns(price_row, r.j, r.keys)}},
         {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
  FROM (
    SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
    FROM raw_minask_prices r
    WHERE ({{rejection(price_row, r.data)}}) IS NULL
  ) r
)
SELECT * EXCLUDE (position) FROM typed
UNION ALL BY NAME
SELECT t.* EXCLUDE (position) REPLACE (s.generated_at AS generated_at, s.fetched_at AS fetched_at,
                                       s.load_id AS load_id, s.ingested_at AS ingested_at)
FROM raw_minask_price_repeats s
JOIN typed t ON t.app_id = s.app_id AND t.fetched_at = s.same_fetched_at AND t.position = s.same_position
