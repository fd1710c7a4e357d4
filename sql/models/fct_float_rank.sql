-- Every live CS2 listing with a float, ranked by float within its item and wear: rank 1 is the
-- lowest float (the cleanest), ties share a rank; `float_percentile` is 0 for the lowest and 1 for
-- the highest. `price_usd` is null when the listing's price did not type.
-- Grain: one row per live listing with a float and a name.
-- materialized: table
-- export: snapshot
-- test: unique(listing_id)
-- test: not_null(listing_id, market_hash_name, wear, float_value, float_rank, listings_in_group)
-- test: expression(float_rank BETWEEN 1 AND listings_in_group)
-- test: row_count(= SELECT count(*) FROM live_listings WHERE app_id = 730 AND float_value IS NOT NULL AND wear IS NOT NULL AND market_hash_name IS NOT NULL)
SELECT listing_id, market_hash_name, wear, doppler_phase, float_value, paint_seed, price_usd,
  rank() OVER w AS float_rank,
  count(*) OVER (PARTITION BY market_hash_name, wear) AS listings_in_group,
  percent_rank() OVER w AS float_percentile
FROM live_listings
WHERE app_id = 730 AND float_value IS NOT NULL AND wear IS NOT NULL AND market_hash_name IS NOT NULL
WINDOW w AS (PARTITION BY market_hash_name, wear ORDER BY float_value)
