-- The service's price lists as fetched, one row per group of a list: the CS2 snapshot file (once
-- per ETag) and the per-game minAsk lists of /prices (once per list). `list_id` names the list:
-- the snapshot's ETag, or the list's generation time. A row whose price did not type (see
-- typing_notes in price_snapshots_typed / minask_prices_typed) has no price to offer and stays out.
-- `generated_at` is on the collector's clock: the upstream's stamp less the clock offset measured
-- with its load (`loads.upstream_offset_ms`), and never after the fetch (the offset is measured to
-- about a second), so ages against local times stay true when the upstream's clock is off.
-- A table typed once from the raw lines as they land (an incremental build types only the lines
-- landed since the last one), so the models over it never parse the price lists again.
-- The unique key holds ingested_at: the rows an incremental build reads again (landed in the
-- last build's instant) are found by it among the few of that instant, not the whole table.
-- materialized: incremental
-- unique_key: app_id, source, list_id, market_hash_name, wear, doppler_phase, ingested_at
-- lake: fetched_at
-- test: not_null(app_id, source, list_id, fetched_at, market_hash_name, min_ask_usd, listed_count)
-- test: accepted_values(source: 'snapshot', 'prices')
-- test: expression(min_ask_usd > 0 AND listed_count > 0)
WITH snapshot_rows AS (
  SELECT * FROM price_snapshots p
  WHERE min_ask_usd IS NOT NULL
  {% if is_incremental %}
    AND p.ingested_at >= {{ since }}
  {% endif %}
),
minask_rows AS (
  SELECT * FROM minask_prices p
  WHERE min_ask_usd IS NOT NULL
  {% if is_incremental %}
    AND p.ingested_at >= {{ since }}
  {% endif %}
),
offsets AS (
  SELECT load_id, upstream_offset_ms FROM loads
  {% if is_incremental %}
  -- The loads of an increment's rows alone: a join with every load hashes as many as the history
  -- holds. A load starts when its rows are ingested, so its time bounds the scan of the loads too.
  WHERE started_at >= {{ since }}
    AND load_id IN (SELECT load_id FROM snapshot_rows UNION SELECT load_id FROM minask_rows)
  {% endif %}
)
SELECT 730 AS app_id, 'snapshot' AS source, etag AS list_id,
  least(generated_at - to_milliseconds(coalesce(l.upstream_offset_ms, 0)), fetched_at) AS generated_at,
  fetched_at, market_hash_name, wear, doppler_phase, min_ask_usd, listed_count, p.ingested_at
FROM snapshot_rows p
LEFT JOIN offsets l USING (load_id)
UNION ALL
SELECT app_id, 'prices', strftime(generated_at, '%Y-%m-%dT%H:%M:%S.%g'),
  least(generated_at - to_milliseconds(coalesce(l.upstream_offset_ms, 0)), fetched_at) AS generated_at,
  fetched_at, market_hash_name, wear, doppler_phase, min_ask_usd, listed_count, p.ingested_at
FROM minask_rows p
LEFT JOIN offsets l USING (load_id)
