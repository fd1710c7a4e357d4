-- Every price in every currency the service quotes: each row of the fetched price lists (at its
-- generation time) and each listing's ask (from when the collector first saw it), converted with the rate in
-- force at that moment, an as-of join on the rate's update time (never today's rate for
-- yesterday's price). A price older than any rate the collector has has a null rate and amount.
-- A view: computed when read, so filter by time or item.
-- Grain: one row per price and currency.
-- materialized: view
-- depends_on: stg_price_lists, int_listing_spells, stg_fx_rates
-- export: CAST(priced_at AS DATE)
-- test: not_null(kind, app_id, market_hash_name, price_usd, priced_at, currency)
-- test: accepted_values(kind: 'price_list', 'listing')
-- test: expression(rate IS NULL OR (amount IS NOT NULL AND rate_valid_from <= priced_at))
WITH prices AS (
  SELECT 'price_list' AS kind, app_id, source || ':' || list_id AS ref, market_hash_name, wear, doppler_phase,
    min_ask_usd AS price_usd, coalesce(generated_at, fetched_at) AS priced_at
  FROM stg_price_lists
  UNION ALL
  SELECT 'listing', app_id, listing_id || '#' || spell, market_hash_name, wear, doppler_phase, ask_usd,
    started_at
  FROM int_listing_spells
  -- A sighting whose price or name did not type has no price of an item to convert.
  WHERE ask_usd IS NOT NULL AND market_hash_name IS NOT NULL
),
currencies AS (SELECT DISTINCT currency FROM stg_fx_rates)
SELECT p.kind, p.app_id, p.ref, p.market_hash_name, p.wear, p.doppler_phase, p.price_usd, p.priced_at, c.currency,
  r.rate, r.valid_from AS rate_valid_from,
  CAST(round(p.price_usd * r.rate, 2) AS DECIMAL(18, 2)) AS amount
FROM prices p
CROSS JOIN currencies c
ASOF LEFT JOIN stg_fx_rates r ON r.currency = c.currency AND p.priced_at >= r.valid_from
