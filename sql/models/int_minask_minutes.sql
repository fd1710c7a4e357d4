-- The per-game half of fct_minask_history: for each game and minute in which a list was fetched or
-- a group's live set changed (the minutes its groups have rows in), the service's price list in
-- force at the end of the minute (`list_minute`, the minute of the fetch that left it in force; its
-- source, fetch time and generation time), the fetch minute before the minute (`previous_fetch`)
-- and the collector's latest landing of listing data by then (`live_as_of`). `fetched` says a list
-- was fetched in the minute itself: a group the list in force lists has a row of
-- fct_minask_history at every such minute. Incremental builds recompute the minutes from the first one new data touches,
-- as fct_minask_history always did, so `built_watermark` is the build that last wrote the minute.
-- Grain: one row per game and minute (UTC).
-- materialized: incremental
-- depends_on: int_live_minask_changes, stg_price_lists
-- unique_key: app_id, minute
-- lake: minute
-- replace_from: minute
-- test: unique(app_id, minute)
-- test: not_null(app_id, minute, fetched, built_watermark)
-- test: expression(fetched = coalesce(list_minute = minute, false))
WITH listing_loads AS NOT MATERIALIZED (
  -- Read by time ranges below, each reaching the scan of the loads (materialized, it read them all).
  SELECT started_at FROM loads WHERE source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%'
),
changed AS (
  -- The first minute new data touches (every minute in a full build), as fct_minask_history's
  -- group rows (int_minask_spells) count it; null when nothing is new.
  SELECT min(minute) AS minute FROM (
    SELECT date_trunc('minute', fetched_at) AS minute FROM snapshot_fetches WHERE ingested_at >= {{ since }}
    UNION ALL
    SELECT date_trunc('minute', fetched_at) FROM stg_price_lists
    WHERE source = 'prices' AND app_id <> 730 AND ingested_at >= {{ since }}
    UNION ALL
    SELECT minute FROM int_live_minask_changes WHERE built_watermark > {{ since }}
    UNION ALL
    SELECT date_trunc('minute', started_at - INTERVAL 1 MINUTE) FROM listing_loads WHERE started_at >= {{ since }}
  )
),
{% if is_incremental %}
games AS (
  -- The games with a minute from the changed one on (a fetch, or a group's live change): each needs
  -- the list in force then.
  SELECT 730 AS app_id FROM snapshot_fetches WHERE fetched_at >= (SELECT minute FROM changed)
  UNION
  SELECT app_id FROM stg_price_lists
  WHERE source = 'prices' AND app_id <> 730 AND fetched_at >= (SELECT minute FROM changed)
  UNION
  SELECT app_id FROM int_live_minask_changes WHERE minute >= (SELECT minute FROM changed)
),
every_fetch AS NOT MATERIALIZED (
  SELECT 730 AS app_id, fetched_at FROM snapshot_fetches
  UNION ALL
  SELECT app_id, fetched_at FROM stg_price_lists WHERE source = 'prices' AND app_id <> 730
),
day_fetch AS (
  -- Per game, its last fetch before the changed minute in the day before it.
  SELECT app_id, max(fetched_at) AS fetched_at FROM every_fetch
  WHERE fetched_at >= (SELECT minute FROM changed) - INTERVAL 1 DAY AND fetched_at < (SELECT minute FROM changed)
  GROUP BY app_id
),
unfetched AS (
  SELECT app_id FROM games WHERE app_id NOT IN (SELECT app_id FROM day_fetch)
),
old_fetch AS (
  -- A game without one that day: its last fetch before, from all its fetches (read only then:
  -- otherwise the first condition excludes every fetch, and DuckDB skips them by time ranges).
  SELECT app_id, max(fetched_at) AS fetched_at FROM every_fetch
  WHERE fetched_at >= (
      SELECT CASE WHEN count(*) = 0 THEN TIMESTAMP 'infinity' ELSE TIMESTAMP '-infinity' END FROM unfetched
    )
    AND fetched_at < (SELECT minute FROM changed) - INTERVAL 1 DAY
    AND app_id IN (SELECT app_id FROM unfetched)
  GROUP BY app_id
),
{% endif %}
bound AS (
  -- The earliest fetch a list in force from the changed minute on may come from: per game with a
  -- minute from it on, its last fetch before it. The fetches from there on are all an increment
  -- reads, however long the history (every one in a full build).
  {% if is_incremental %}
  SELECT coalesce(least(date_trunc('minute', min(fetched_at)), (SELECT minute FROM changed)), (SELECT minute FROM changed))
    AS minute
  FROM (SELECT * FROM day_fetch UNION ALL SELECT * FROM old_fetch)
  {% else %}
  SELECT minute FROM changed
  {% endif %}
),
snapshot_fetched AS (
  SELECT etag, fetched_at, ingested_at FROM snapshot_fetches WHERE fetched_at >= (SELECT minute FROM bound)
),
fetches AS (
  -- The fetches of a list from that bound on and the download each left in force: a 304 keeps the
  -- previous download (of its ETag, however old).
  SELECT 730 AS app_id, 'snapshot' AS source, f.etag AS list_id, d.fetched_at AS downloaded_at, f.fetched_at,
    f.ingested_at
  FROM snapshot_fetched f
  ASOF JOIN (
    SELECT etag, fetched_at FROM snapshot_fetches
    WHERE status = 'downloaded' AND etag IN (SELECT etag FROM snapshot_fetched)
  ) d
    ON d.etag = f.etag AND f.fetched_at >= d.fetched_at
  UNION ALL
  SELECT DISTINCT app_id, 'prices', list_id, fetched_at, fetched_at, ingested_at
  FROM stg_price_lists
  WHERE source = 'prices' AND app_id <> 730 AND fetched_at >= (SELECT minute FROM bound)
),
in_force AS (
  -- Per game and minute with a fetch: the list the minute's last fetch left in force.
  SELECT app_id, date_trunc('minute', fetched_at) AS minute, arg_max_null(source, fetched_at) AS source,
    arg_max_null(list_id, fetched_at) AS list_id, arg_max_null(downloaded_at, fetched_at) AS downloaded_at,
    max(fetched_at) AS fetched_at
  FROM fetches
  GROUP BY ALL
),
lists AS (
  -- The fetch minutes to read lists at: per game, from the one in force at the changed minute on.
  SELECT i.* FROM in_force i
  WHERE i.minute >= (
    SELECT coalesce(max(p.minute), (SELECT minute FROM changed)) FROM in_force p
    WHERE p.app_id = i.app_id AND p.minute <= (SELECT minute FROM changed)
  )
),
stamps AS (
  -- Each list's generation time: one per download (its rows share their load's clock offset).
  SELECT app_id, source, list_id, fetched_at AS downloaded_at, max(generated_at) AS generated_at
  FROM stg_price_lists
  WHERE (source = 'snapshot') = (app_id = 730) AND fetched_at >= (SELECT min(downloaded_at) FROM lists)
  GROUP BY ALL
),
live AS (
  SELECT app_id, minute FROM int_live_minask_changes WHERE minute >= (SELECT minute FROM changed)
),
latest_feed AS (
  -- The latest landing of listing data before the changed minute's feeds: looked for in the day
  -- before them, and in all the loads before that only when the day has none (the filter then
  -- excludes every load, and DuckDB skips the loads by their time ranges).
  SELECT coalesce(
    (SELECT max(started_at) FROM listing_loads
     WHERE started_at < (SELECT minute FROM changed) - INTERVAL 1 MINUTE
       AND started_at >= (SELECT minute FROM changed) - INTERVAL 1 DAY),
    (SELECT max(started_at) FROM listing_loads
     WHERE started_at < (
       SELECT CASE WHEN count(*) = 0 THEN (SELECT minute FROM changed) - INTERVAL 1 DAY ELSE TIMESTAMP '-infinity' END
       FROM listing_loads
       WHERE started_at < (SELECT minute FROM changed) - INTERVAL 1 MINUTE
         AND started_at >= (SELECT minute FROM changed) - INTERVAL 1 DAY))
  ) AS started_at
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
    SELECT started_at, started_at - INTERVAL 1 MINUTE FROM latest_feed
  )
  WHERE started_at IS NOT NULL
  GROUP BY ALL
),
series AS (
  -- The minutes from the changed one on in which a group has a row: a list was fetched, or a
  -- group's live set changed.
  SELECT DISTINCT app_id, minute FROM (
    SELECT app_id, minute FROM lists WHERE minute >= (SELECT minute FROM changed)
    UNION ALL
    SELECT app_id, minute FROM live
  )
)
-- Per game and minute of the series: the list in force and the latest landing of listings,
-- carried forward in minute order, and the fetch minute before the minute.
SELECT app_id, minute, in_list.minute IS NOT DISTINCT FROM minute AS fetched, in_list.minute AS list_minute,
  previous_fetch, in_list.source AS service_source, in_list.fetched_at AS service_fetched_at,
  in_list.generated_at AS service_generated_at, live_as_of, {{ watermark }} AS built_watermark
FROM (
  SELECT app_id, minute, kind,
    last_value(in_list IGNORE NULLS) OVER w AS in_list,
    last_value(feed IGNORE NULLS) OVER w AS live_as_of,
    max(CASE WHEN kind <= 0 THEN minute END) OVER (PARTITION BY app_id ORDER BY minute
      RANGE BETWEEN UNBOUNDED PRECEDING AND INTERVAL 1 MINUTE PRECEDING) AS previous_fetch
  FROM (
    SELECT l.app_id, l.minute, 0 AS kind,
      {'minute': l.minute, 'source': l.source, 'fetched_at': l.fetched_at, 'generated_at': s.generated_at} AS in_list,
      NULL::TIMESTAMP AS feed
    FROM lists l
    LEFT JOIN stamps s
      ON s.app_id = l.app_id AND s.source = l.source AND s.list_id = l.list_id AND s.downloaded_at = l.downloaded_at
    UNION ALL
    -- The last fetch before the changed minute, when the list in force then came from a fetch before it.
    SELECT app_id, max(minute), -1, NULL, NULL FROM in_force WHERE minute < (SELECT minute FROM changed)
    GROUP BY app_id
    UNION ALL
    SELECT a.app_id, f.minute, 1, NULL, f.started_at FROM feeds f CROSS JOIN (SELECT DISTINCT app_id FROM series) a
    UNION ALL
    SELECT app_id, minute, 2, NULL, NULL FROM series
  )
  WINDOW w AS (PARTITION BY app_id ORDER BY minute, kind ROWS UNBOUNDED PRECEDING)
)
WHERE kind = 2
