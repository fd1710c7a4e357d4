-- Stickers on the live CS2 listings: per sticker name, how many listings carry it and how many
-- times it is applied, the slots it sits in, its scrape wear, the item wears it appears on, and
-- the median premium of those listings over the median ask of the same item and wear without
-- stickers (only listings whose item and wear has such a baseline count towards it).
-- Grain: one row per sticker name.
-- materialized: table
-- export: snapshot
-- test: unique(sticker_name)
-- test: not_null(sticker_name, listings, applications, slots)
-- test: expression(applications >= listings AND listings_with_baseline <= listings)
WITH live AS (
  SELECT listing_id, market_hash_name, wear, price_usd, stickers
  FROM live_listings
  WHERE app_id = 730
),
baseline AS (
  SELECT market_hash_name, wear, median(CAST(price_usd AS DOUBLE)) AS plain_median_usd
  FROM live
  WHERE len(stickers) = 0
  GROUP BY market_hash_name, wear
),
applied AS (
  SELECT listing_id, market_hash_name, wear, price_usd, unnest(stickers) AS sticker
  FROM live
),
per_listing AS (
  SELECT a.sticker.name AS sticker_name, a.listing_id, a.wear AS item_wear, any_value(a.price_usd) AS price_usd,
    count(*) AS applications, list(DISTINCT a.sticker.slot) AS slots, avg(a.sticker.wear) AS sticker_wear,
    any_value(b.plain_median_usd) AS plain_median_usd
  FROM applied a
  LEFT JOIN baseline b ON b.market_hash_name = a.market_hash_name AND b.wear IS NOT DISTINCT FROM a.wear
  GROUP BY a.sticker.name, a.listing_id, a.wear
)
SELECT sticker_name,
  count(*) AS listings,
  CAST(sum(applications) AS BIGINT) AS applications,
  list_sort(list_distinct(flatten(list(slots)))) AS slots,
  round(avg(sticker_wear), 9) AS sticker_wear_avg,
  list_sort(list_distinct(list(item_wear))) AS item_wears,
  count(plain_median_usd) AS listings_with_baseline,
  median(CAST(price_usd AS DOUBLE) - plain_median_usd) AS median_premium_usd,
  median((CAST(price_usd AS DOUBLE) / plain_median_usd - 1) * 100) AS median_premium_pct
FROM per_listing
GROUP BY sticker_name
