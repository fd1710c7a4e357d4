-- Float values of the live CS2 listings, per item and wear: a histogram with fixed buckets 0.01
-- wide (bucket 7 holds floats from 0.07 up to 0.08), with each bucket's listing count, share of
-- the item and wear, and cheapest ask. Only buckets holding a listing have a row. The per-listing
-- ranks are in fct_float_rank.
-- Grain: one row per item name, wear and float bucket.
-- materialized: table
-- export: snapshot
-- test: unique(market_hash_name, wear, bucket)
-- test: not_null(market_hash_name, wear, bucket, bucket_low, bucket_high, listings, cheapest_ask_usd)
-- test: expression(bucket BETWEEN 0 AND 99 AND listings > 0 AND share > 0 AND share <= 1)
-- test: accepted_values(wear: 'Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred')
-- test: row_count(> 0)
WITH floats AS (
  SELECT market_hash_name, wear, price_usd, CAST(least(floor(float_value * 100), 99) AS INTEGER) AS bucket
  FROM live_listings
  WHERE app_id = 730 AND float_value IS NOT NULL AND wear IS NOT NULL AND market_hash_name IS NOT NULL
)
SELECT market_hash_name, wear, bucket,
  bucket / 100 AS bucket_low,
  (bucket + 1) / 100 AS bucket_high,
  count(*) AS listings,
  count(*) / sum(count(*)) OVER (PARTITION BY market_hash_name, wear) AS share,
  min(price_usd) AS cheapest_ask_usd
FROM floats
GROUP BY market_hash_name, wear, bucket
