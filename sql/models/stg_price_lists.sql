-- The service's price lists as fetched, one row per group of a list: the CS2 snapshot file (once
-- per ETag) and the per-game minAsk lists of /prices (once per list). `list_id` names the list:
-- the snapshot's ETag, or the list's generation time. A row whose price did not type (see
-- typing_notes in price_snapshots_typed / minask_prices_typed) has no price to offer and stays out.
-- materialized: view
-- test: not_null(app_id, source, list_id, fetched_at, market_hash_name, min_ask_usd, listed_count)
-- test: accepted_values(source: 'snapshot', 'prices')
-- test: expression(min_ask_usd > 0 AND listed_count > 0)
SELECT 730 AS app_id, 'snapshot' AS source, etag AS list_id, generated_at, fetched_at, market_hash_name, wear,
  doppler_phase, min_ask_usd, listed_count, ingested_at
FROM price_snapshots
WHERE min_ask_usd IS NOT NULL
UNION ALL
SELECT app_id, 'prices', strftime(generated_at, '%Y-%m-%dT%H:%M:%S.%g'), generated_at, fetched_at, market_hash_name,
  wear, doppler_phase, min_ask_usd, listed_count, ingested_at
FROM minask_prices
WHERE min_ask_usd IS NOT NULL
