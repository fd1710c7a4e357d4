-- Cheapest ask and listed count per group (item name, wear, Doppler phase) and minute, twice, side
-- by side: as the service's price list in force at the end of the minute said it (the CS2 snapshot
-- file; the /prices list for the other games), and as recomputed from the listings the collector
-- itself holds. Each side says how old it is at the end of the minute: the service list by its
-- generation time (a 304 keeps an old list in force, and its age grows), the collector's figure
-- by its latest landing from the stream, a poll or a sweep. A row exists for every minute with a
-- fetched list that lists the group, and every minute the group's live set changed. Incremental
-- builds recompute the minutes from the first one new data touches.
-- Grain: one row per group and minute (UTC).
-- materialized: incremental
-- depends_on: int_live_minask_changes
-- unique_key: app_id, market_hash_name, wear, doppler_phase, minute
-- export: CAST(minute AS DATE)
-- test: unique(app_id, market_hash_name, wear, doppler_phase, minute)
-- test: not_null(app_id, market_hash_name, minute, live_listed_count, built_watermark)
-- test: accepted_values(service_source: 'snapshot', 'prices')
-- test: expression(service_age_seconds >= 0 AND live_age_seconds >= 0)
-- test: expression((service_listed_count = 0) = (service_min_ask_usd IS NULL))
-- test: relationships(app_id, market_hash_name -> dim_items)
WITH fetches AS (
  -- Every fetch of a list and the download it left in force: a 304 keeps the previous download.
  SELECT 730 AS app_id, 'snapshot' AS source, f.etag AS list_id, d.fetched_at AS downloaded_at, f.fetched_at,
    f.ingested_at
  FROM snapshot_fetches f
  ASOF JOIN (SELECT etag, fetched_at FROM snapshot_fetches WHERE status = 'downloaded') d
    ON d.etag = f.etag AND f.fetched_at >= d.fetched_at
  UNION ALL
  SELECT DISTINCT app_id, 'prices', CAST(generated_at AS VARCHAR), fetched_at, fetched_at, ingested_at
  FROM minask_prices
  WHERE app_id <> 730
),
in_force AS (
  -- Per game and minute with a fetch: the list the minute's last fetch left in force.
  SELECT app_id, date_trunc('minute', fetched_at) AS minute, arg_max_null(source, fetched_at) AS source,
    arg_max_null(list_id, fetched_at) AS list_id, arg_max_null(downloaded_at, fetched_at) AS downloaded_at,
    max(fetched_at) AS fetched_at
  FROM fetches
  GROUP BY ALL
),
changed AS (
  -- The first minute new data touches (every minute in a full build).
  SELECT min(minute) AS minute FROM (
    SELECT date_trunc('minute', fetched_at) AS minute FROM fetches WHERE ingested_at >= {{ since }}
    UNION ALL
    SELECT minute FROM int_live_minask_changes WHERE built_watermark >= {{ since }}
  )
),
lists_from AS (
  -- Lists are read from the one in force at that minute on.
  SELECT coalesce(max(i.minute), min(c.minute)) AS minute
  FROM changed c LEFT JOIN in_force i ON i.minute <= c.minute
),
list_rows AS (
  SELECT 730 AS app_id, 'snapshot' AS source, etag AS list_id, fetched_at AS downloaded_at, market_hash_name, wear,
    doppler_phase,
    min_ask_usd, listed_count, generated_at
  FROM price_snapshots
  WHERE fetched_at >= (SELECT minute FROM lists_from)
  UNION ALL
  SELECT app_id, 'prices', CAST(generated_at AS VARCHAR), fetched_at, market_hash_name, wear, doppler_phase, min_ask_usd,
    listed_count, generated_at
  FROM minask_prices
  WHERE app_id <> 730 AND fetched_at >= (SELECT minute FROM lists_from)
),
listed AS (
  SELECT i.app_id, i.minute, r.market_hash_name, r.wear, r.doppler_phase
  FROM in_force i
  JOIN list_rows r
    ON r.app_id = i.app_id AND r.source = i.source AND r.list_id = i.list_id AND r.downloaded_at = i.downloaded_at
  WHERE i.minute >= (SELECT minute FROM changed)
),
live AS (
  -- The collector's changes from the first changed minute on, and each group's last one before it.
  SELECT app_id, market_hash_name, wear, doppler_phase, minute, min_ask_usd, listed_count
  FROM int_live_minask_changes
  WHERE minute >= (SELECT minute FROM changed)
  UNION ALL
  SELECT app_id, market_hash_name, wear, doppler_phase, max(minute), arg_max_null(min_ask_usd, minute),
    arg_max_null(listed_count, minute)
  FROM int_live_minask_changes
  WHERE minute < (SELECT minute FROM changed)
  GROUP BY app_id, market_hash_name, wear, doppler_phase
),
grid AS (
  SELECT app_id, market_hash_name, wear, doppler_phase, minute FROM listed
  UNION
  SELECT app_id, market_hash_name, wear, doppler_phase, minute FROM live WHERE minute >= (SELECT minute FROM changed)
),
feeds AS (
  -- Landings of listing data, for the age of the collector's figure.
  SELECT started_at FROM loads
  WHERE (source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%')
    AND started_at >= (SELECT minute FROM changed) - INTERVAL 1 MINUTE
  UNION ALL
  SELECT max(started_at) FROM loads
  WHERE (source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%')
    AND started_at < (SELECT minute FROM changed) - INTERVAL 1 MINUTE
),
service AS (
  SELECT g.*, i.source, i.list_id, i.downloaded_at, i.fetched_at
  FROM grid g
  ASOF LEFT JOIN in_force i ON i.app_id = g.app_id AND g.minute >= i.minute
),
both_sides AS (
  SELECT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, s.minute, s.source AS service_source,
    r.min_ask_usd AS service_min_ask_usd,
    CASE WHEN s.list_id IS NULL THEN NULL ELSE coalesce(r.listed_count, 0) END AS service_listed_count,
    r.generated_at AS service_generated_at,
    s.fetched_at AS service_fetched_at,
    l.min_ask_usd AS live_min_ask_usd,
    coalesce(l.listed_count, 0) AS live_listed_count
  FROM service s
  LEFT JOIN list_rows r
    ON r.app_id = s.app_id AND r.source = s.source AND r.list_id = s.list_id AND r.downloaded_at = s.downloaded_at
    AND r.market_hash_name = s.market_hash_name AND r.wear IS NOT DISTINCT FROM s.wear
    AND r.doppler_phase IS NOT DISTINCT FROM s.doppler_phase
  -- Null-safe keys spelled with coalesce: ASOF joins match NULL keys unreliably with IS NOT DISTINCT FROM.
  ASOF LEFT JOIN live l
    ON l.app_id = s.app_id AND l.market_hash_name = s.market_hash_name
    AND coalesce(l.wear, '') = coalesce(s.wear, '') AND coalesce(l.doppler_phase, '') = coalesce(s.doppler_phase, '')
    AND s.minute >= l.minute
)
SELECT b.*,
  date_diff('millisecond', coalesce(b.service_generated_at, b.service_fetched_at), b.minute + INTERVAL 1 MINUTE) / 1000.0
    AS service_age_seconds,
  f.started_at AS live_as_of,
  date_diff('millisecond', f.started_at, b.minute + INTERVAL 1 MINUTE) / 1000.0 AS live_age_seconds,
  b.service_min_ask_usd - b.live_min_ask_usd AS min_ask_diff_usd,
  {{ watermark }} AS built_watermark
FROM both_sides b
ASOF LEFT JOIN feeds f ON b.minute + INTERVAL 1 MINUTE >= f.started_at
