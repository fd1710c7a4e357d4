-- Float values of the live CS2 listings, per item and wear: a histogram with fixed buckets 0.01
-- wide (bucket 7 holds floats from 0.07 up to 0.08), with each bucket's listing count, share of
-- the item and wear, and cheapest ask. Only buckets holding a listing have a row. Read from
-- fct_float_rank, which holds those listings (the live set read once a refresh, not twice).
-- Grain: one row per item name, wear and float bucket.
-- materialized: table
-- depends_on: fct_float_rank
-- export: snapshot
-- test: unique(market_hash_name, wear, bucket)
-- test: not_null(market_hash_name, wear, bucket, bucket_low, bucket_high, listings, cheapest_ask_usd)
-- test: expression(bucket BETWEEN 0 AND 99 AND listings > 0 AND share > 0 AND share <= 1)
-- test: accepted_values(wear: 'Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred')
-- test: row_count(> 0)
WITH floats AS (
  SELECT market_hash_name, wear, price_usd, CAST(least(floor(float_value * 100), 99) AS INTEGER) AS bucket
  FROM fct_float_rank
)
SELECT market_hash_name, wear, bucket,
  bucket / 100 AS bucket_low,
  (bucket + 1) / 100 AS bucket_high,
  count(*) AS listings,
  count(*) / sum(count(*)) OVER (PARTITION BY market_hash_name, wear) AS share,
  min(price_usd) AS cheapest_ask_usd
FROM floats
GROUP BY market_hash_name, wear, bucket
