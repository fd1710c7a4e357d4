-- Cheapest ask and listed count per group (item name, wear, Doppler phase) and minute, twice, side
-- by side: as the service's price list in force at the end of the minute said it (the CS2 snapshot
-- file; the /prices list for the other games), and as recomputed from the listings the collector
-- itself holds. Each side says how old it is at the end of the minute: the service list by its
-- generation time (a 304 keeps an old list in force, and its age grows), the collector's figure
-- by its latest landing from the stream, a poll or a sweep (none for a minute that ended before the
-- first landing: listings listed earlier are known from what landed later). A row exists for every minute with a
-- fetched list that lists the group, and every minute the group's live set changed. Incremental
-- builds recompute the minutes from the first one new data touches.
-- A full build runs in chunks of groups (by a hash of the group): each reads its groups' rows of
-- the lists and of the live changes.
-- Grain: one row per group and minute (UTC).
-- materialized: incremental
-- depends_on: int_live_minask_changes, stg_price_lists
-- unique_key: app_id, market_hash_name, wear, doppler_phase, minute
-- replace_from: minute
-- chunks: 8
-- export: CAST(minute AS DATE)
-- test: unique(app_id, market_hash_name, wear, doppler_phase, minute)
-- test: not_null(app_id, market_hash_name, minute, live_listed_count, built_watermark)
-- test: accepted_values(service_source: 'snapshot', 'prices')
-- test: expression(coalesce(service_age_seconds, 0) >= 0 AND coalesce(live_age_seconds, 0) >= 0)
-- test: expression(live_listed_count = 0 OR live_as_of IS NOT NULL OR minute + INTERVAL 1 MINUTE <= (SELECT min(started_at) FROM loads WHERE source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%'))
-- test: expression((coalesce(service_listed_count, 0) = 0) = (service_min_ask_usd IS NULL))
-- test: relationships(app_id, market_hash_name -> dim_items)
WITH fetches AS (
  -- Every fetch of a list and the download it left in force: a 304 keeps the previous download.
  SELECT 730 AS app_id, 'snapshot' AS source, f.etag AS list_id, d.fetched_at AS downloaded_at, f.fetched_at,
    f.ingested_at
  FROM snapshot_fetches f
  ASOF JOIN (SELECT etag, fetched_at FROM snapshot_fetches WHERE status = 'downloaded') d
    ON d.etag = f.etag AND f.fetched_at >= d.fetched_at
  UNION ALL
  SELECT DISTINCT app_id, 'prices', list_id, fetched_at, fetched_at, ingested_at
  FROM stg_price_lists
  WHERE source = 'prices' AND app_id <> 730
),
in_force AS (
  -- Per game and minute with a fetch: the list the minute's last fetch left in force.
  SELECT app_id, date_trunc('minute', fetched_at) AS minute, arg_max_null(source, fetched_at) AS source,
    arg_max_null(list_id, fetched_at) AS list_id, arg_max_null(downloaded_at, fetched_at) AS downloaded_at,
    max(fetched_at) AS fetched_at
  FROM fetches
  GROUP BY ALL
),
listing_loads AS (
  SELECT started_at FROM loads WHERE source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%'
),
changed AS (
  -- The first minute new data touches (every minute in a full build): a new fetch, a new live
  -- change, or a new landing of listings (the age of the collector's figure at the end of a minute
  -- counts from the latest landing started by then, so one landing after the last build moves it
  -- from the minute that landing falls in). Null when nothing is new: the increment is empty (a
  -- default of 1970 made it a series of every minute since then).
  SELECT min(minute) AS minute FROM (
    SELECT date_trunc('minute', fetched_at) AS minute FROM fetches WHERE ingested_at >= {{ since }}
    UNION ALL
    SELECT minute FROM int_live_minask_changes WHERE built_watermark > {{ since }}
    UNION ALL
    SELECT date_trunc('minute', started_at - INTERVAL 1 MINUTE) FROM listing_loads WHERE started_at >= {{ since }}
  )
),
lists AS (
  -- The fetch minutes to read lists at: per game, from the one in force at the changed minute on.
  SELECT i.* FROM in_force i
  WHERE i.minute >= (
    SELECT coalesce(max(p.minute), (SELECT minute FROM changed)) FROM in_force p
    WHERE p.app_id = i.app_id AND p.minute <= (SELECT minute FROM changed)
  )
),
service AS (
  -- Per fetch minute, every group the list in force lists.
  SELECT l.app_id, r.market_hash_name, r.wear, r.doppler_phase, l.minute, r.min_ask_usd, r.listed_count,
    r.generated_at
  FROM lists l
  JOIN (
    -- The snapshot for CS2, /prices for the other games (a list of the in-force source only).
    SELECT app_id, source, list_id, fetched_at AS downloaded_at, market_hash_name, wear, doppler_phase,
      min_ask_usd, listed_count, generated_at
    FROM stg_price_lists
    WHERE (source = 'snapshot') = (app_id = 730) AND fetched_at >= (SELECT min(downloaded_at) FROM lists)
      AND {{ in_chunk(market_hash_name, wear, doppler_phase) }}
  ) r
    ON r.app_id = l.app_id AND r.source = l.source AND r.list_id = l.list_id AND r.downloaded_at = l.downloaded_at
),
live AS (
  -- The collector's changes from the changed minute on, and each group's last one before it.
  SELECT app_id, market_hash_name, wear, doppler_phase, minute, min_ask_usd, listed_count
  FROM int_live_minask_changes
  WHERE minute >= (SELECT minute FROM changed) AND {{ in_chunk(market_hash_name, wear, doppler_phase) }}
  UNION ALL
  SELECT app_id, market_hash_name, wear, doppler_phase, max(minute), arg_max_null(min_ask_usd, minute),
    arg_max_null(listed_count, minute)
  FROM int_live_minask_changes
  WHERE minute < (SELECT minute FROM changed) AND {{ in_chunk(market_hash_name, wear, doppler_phase) }}
  GROUP BY app_id, market_hash_name, wear, doppler_phase
),
carried AS (
  -- One pass per group in time order carries each side's latest figure forward; at a minute with
  -- both, the live change sorts first so the service row sees it.
  SELECT app_id, market_hash_name, wear, doppler_phase, minute,
    last_value(CASE WHEN side = 0 THEN {'ask': min_ask_usd, 'count': listed_count} END IGNORE NULLS) OVER w AS live,
    last_value(CASE WHEN side = 1 THEN {'minute': minute, 'ask': min_ask_usd, 'count': listed_count,
      'generated_at': generated_at} END IGNORE NULLS) OVER w AS listed,
    lead(minute) OVER w AS next_minute
  FROM (
    SELECT app_id, market_hash_name, wear, doppler_phase, minute, 0 AS side, min_ask_usd, listed_count,
      NULL::TIMESTAMP AS generated_at
    FROM live
    UNION ALL
    SELECT app_id, market_hash_name, wear, doppler_phase, minute, 1, min_ask_usd, listed_count, generated_at
    FROM service
  )
  WINDOW w AS (PARTITION BY app_id, market_hash_name, wear, doppler_phase ORDER BY minute, side
    ROWS UNBOUNDED PRECEDING)
),
feeds AS (
  -- Landings of listing data, for the age of the collector's figure, by the first minute whose end
  -- they precede: the ones from the changed minute on, and the latest before it.
  SELECT CASE WHEN date_trunc('minute', shifted) = shifted THEN shifted ELSE date_trunc('minute', shifted) + INTERVAL 1 MINUTE END
      AS minute,
    max(started_at) AS started_at
  FROM (
    SELECT started_at, started_at - INTERVAL 1 MINUTE AS shifted FROM listing_loads
    WHERE started_at >= (SELECT minute FROM changed) - INTERVAL 1 MINUTE
    UNION ALL
    SELECT max(started_at), max(started_at) - INTERVAL 1 MINUTE FROM listing_loads
    WHERE started_at < (SELECT minute FROM changed) - INTERVAL 1 MINUTE
  )
  WHERE started_at IS NOT NULL
  GROUP BY ALL
),
series AS (
  -- Every minute from the changed one on, for each game with a list or a live change in it.
  SELECT app_id, unnest(generate_series((SELECT minute FROM changed), max(minute), INTERVAL 1 MINUTE)) AS minute
  FROM (SELECT app_id, minute FROM lists UNION ALL SELECT app_id, minute FROM live)
  GROUP BY app_id
),
minutes AS (
  -- Per game and minute of the series: the list in force and the latest landing of listings,
  -- carried forward in minute order (small: one row per game and minute).
  SELECT app_id, minute, in_list.minute AS list_minute, in_list.source, in_list.fetched_at, live_as_of
  FROM (
    SELECT app_id, minute, kind,
      last_value(in_list IGNORE NULLS) OVER w AS in_list,
      last_value(feed IGNORE NULLS) OVER w AS live_as_of
    FROM (
      SELECT app_id, minute, 0 AS kind, {'minute': minute, 'source': source, 'fetched_at': fetched_at} AS in_list,
        NULL::TIMESTAMP AS feed
      FROM lists
      UNION ALL
      SELECT a.app_id, f.minute, 1, NULL, f.started_at FROM feeds f CROSS JOIN (SELECT DISTINCT app_id FROM series) a
      UNION ALL
      SELECT app_id, minute, 2, NULL, NULL FROM series
    )
    WINDOW w AS (PARTITION BY app_id ORDER BY minute, kind ROWS UNBOUNDED PRECEDING)
  )
  WHERE kind = 2
),
both_sides AS (
  SELECT c.app_id, c.market_hash_name, c.wear, c.doppler_phase, c.minute, m.source AS service_source,
    -- The group's row of the list in force, if that list lists it.
    CASE WHEN c.listed.minute = m.list_minute THEN c.listed.ask END AS service_min_ask_usd,
    CASE WHEN c.listed.minute = m.list_minute THEN c.listed.count WHEN m.list_minute IS NOT NULL THEN 0 END
      AS service_listed_count,
    CASE WHEN c.listed.minute = m.list_minute THEN c.listed.generated_at END AS service_generated_at,
    m.fetched_at AS service_fetched_at,
    c.live.ask AS live_min_ask_usd,
    coalesce(c.live.count, 0) AS live_listed_count,
    m.live_as_of
  FROM carried c
  JOIN minutes m ON m.app_id = c.app_id AND m.minute = c.minute
  -- The last row of each group and minute holds both sides.
  WHERE c.next_minute IS DISTINCT FROM c.minute
)
SELECT app_id, market_hash_name, wear, doppler_phase, minute, service_source, service_min_ask_usd,
  service_listed_count, service_generated_at, service_fetched_at, live_min_ask_usd, live_listed_count,
  date_diff('millisecond', coalesce(service_generated_at, service_fetched_at), minute + INTERVAL 1 MINUTE) / 1000.0
    AS service_age_seconds,
  live_as_of,
  date_diff('millisecond', live_as_of, minute + INTERVAL 1 MINUTE) / 1000.0 AS live_age_seconds,
  service_min_ask_usd - live_min_ask_usd AS min_ask_diff_usd,
  {{ watermark }} AS built_watermark
FROM both_sides
