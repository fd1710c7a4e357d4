-- Every row of a game's minAsk list typed leniently as a PriceRow; a row without a
-- market_hash_name names no group and is in rejected_payloads. A row byte-identical to its group's
-- last row was recorded as a repeat (raw_minask_price_repeats): it is typed from the text of the
-- row it repeats, with its own list's envelope. The repeats are joined to the stored rows before
-- any text is typed, so a filter on the envelope (an increment's `ingested_at`) keeps DuckDB from
-- parsing the rows no selected row needs.
WITH lists AS (
  SELECT app_id, fetched_at, generated_at, load_id, ingested_at, data FROM raw_minask_prices
  UNION ALL
  SELECT s.app_id, s.fetched_at, s.generated_at, s.load_id, s.ingested_at, d.data
  FROM raw_minask_price_repeats s
  JOIN raw_minask_prices d ON d.app_id = s.app_id AND d.fetched_at = s.same_fetched_at AND d.position = s.same_position
)
SELECT r.app_id, r.fetched_at, r.generated_at, r.load_id, r.ingested_at,
       {{typed_columns(price_row, r.j, r.keys)}},
       {{extra_keys(price_row, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(price_row, r.data)}} AS j, json_keys(r.data) AS keys
  FROM lists r
  WHERE ({{rejection(price_row, r.data)}}) IS NULL
) r
