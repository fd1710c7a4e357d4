-- The per-group half of fct_minask_history, stored as changes: a row per run of a group's minutes
-- in which its figures stayed the same. A run holds the group's row of fct_minask_history at
-- `minute` and at every minute of its game with a fetched list (int_minask_minutes.fetched) after
-- it, up to and with `last_minute`; a row at a minute with no fetch (a live change only) is a run
-- of its own. Figures: whether the list in force lists the group (`listed`) and its cheapest ask
-- and count there, and the collector's live figures (see fct_minask_history). The group's minutes
-- are those fct_minask_history always had: every minute with a fetched list listing the group, and
-- every minute its live set changed. Incremental builds recompute the minutes from the first one
-- new data touches, and write again the run that reaches the minute before it (it may go on): a
-- run's row is written once more each minute while it lasts, the runs that ended stay, and the
-- runs stored from that minute on go, a group's with no new row too (`delete_when`). A run
-- ends with its UTC day (the lake moves days of it by `minute`).
-- A full build runs in chunks of groups (by a hash of the group).
-- Grain: one row per group and run (UTC minutes).
-- materialized: incremental
-- depends_on: int_live_minask_changes, stg_price_lists, int_minask_minutes
-- unique_key: app_id, market_hash_name, wear, doppler_phase, minute
-- lake: minute
-- order_by: app_id, market_hash_name, wear, doppler_phase, minute
-- replace_from: minute
-- delete_when: last_minute IS NULL
-- chunks: 8
-- test: unique(app_id, market_hash_name, wear, doppler_phase, minute)
-- test: not_null(app_id, market_hash_name, minute, last_minute, listed, live_listed_count, built_watermark)
-- test: expression(last_minute >= minute AND CAST(last_minute AS DATE) = CAST(minute AS DATE))
-- test: expression(listed OR (service_min_ask_usd IS NULL AND service_listed_count IS NULL))
WITH listing_loads AS (
  SELECT started_at FROM loads WHERE source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%'
),
changed AS (
  -- The first minute new data touches (every minute in a full build): a new fetch, a new live
  -- change, or a new landing of listings (the age of the collector's figure at the end of a minute
  -- counts from the latest landing started by then, so one landing after the last build moves it
  -- from the minute that landing falls in). Null when nothing is new: the increment is empty.
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
minutes AS (
  -- The game's minutes from the changed one on.
  SELECT app_id, minute, fetched, list_minute, previous_fetch
  FROM int_minask_minutes
  WHERE minute >= (SELECT minute FROM changed)
),
before AS (
  -- Per game, the fetch minute before the changed one: the one before its first minute from it on
  -- (every fetch minute is one of its minutes).
  SELECT app_id, arg_min(previous_fetch, minute) AS list_minute FROM minutes GROUP BY app_id
),
bound AS (
  -- The earliest fetch a list in force from the changed minute on may come from: the fetches from
  -- it on are all an increment reads, however long the history (every one in a full build).
  SELECT coalesce(least(min(list_minute), (SELECT minute FROM changed)), (SELECT minute FROM changed)) AS minute
  FROM before
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
    arg_max_null(list_id, fetched_at) AS list_id, arg_max_null(downloaded_at, fetched_at) AS downloaded_at
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
service AS (
  -- Per fetch minute, every group the list in force lists.
  SELECT l.app_id, r.market_hash_name, r.wear, r.doppler_phase, l.minute, r.min_ask_usd, r.listed_count
  FROM lists l
  JOIN (
    -- The snapshot for CS2, /prices for the other games (a list of the in-force source only).
    SELECT app_id, source, list_id, fetched_at AS downloaded_at, market_hash_name, wear, doppler_phase,
      min_ask_usd, listed_count
    FROM stg_price_lists
    WHERE (source = 'snapshot') = (app_id = 730) AND fetched_at >= (SELECT min(downloaded_at) FROM lists)
      AND {{ in_chunk(market_hash_name, wear, doppler_phase) }}
  ) r
    ON r.app_id = l.app_id AND r.source = l.source AND r.list_id = l.list_id AND r.downloaded_at = l.downloaded_at
),
{% if is_incremental %}
recent AS MATERIALIZED (
  -- The stored runs before the changed minute from the day of the earliest fetch read on (the
  -- table is in time order: the rest of it is skipped).
  SELECT *
  FROM (SELECT * FROM {{ this }} WHERE minute >= (SELECT date_trunc('day', minute) FROM bound))
  WHERE minute < (SELECT minute FROM changed)
),
stored AS (
  -- Those whose rows reach the fetch minute before the changed one (or past it), per game: the
  -- first new row may continue one. A run never spans two days, so each is among the runs above.
  SELECT s.*, b.list_minute
  FROM recent s
  JOIN before b ON b.app_id = s.app_id
  WHERE s.last_minute >= coalesce(b.list_minute, (SELECT minute FROM changed))
),
missing AS (
  -- The groups listed from the list in force at the changed minute on with no run among them (not
  -- listed, and no live change, since the day before): rare.
  SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase FROM service v
  WHERE NOT EXISTS (
    SELECT 1 FROM recent s
    WHERE s.app_id = v.app_id AND s.market_hash_name = v.market_hash_name
      AND s.wear IS NOT DISTINCT FROM v.wear AND s.doppler_phase IS NOT DISTINCT FROM v.doppler_phase
  )
),
{% endif %}
live AS (
  -- The collector's changes from the changed minute on, and each group's figures before it.
  SELECT app_id, market_hash_name, wear, doppler_phase, minute, min_ask_usd, listed_count
  FROM int_live_minask_changes
  WHERE minute >= (SELECT minute FROM changed) AND {{ in_chunk(market_hash_name, wear, doppler_phase) }}
{% if is_incremental %}
  -- (A full build has none: every change is at the changed minute or after.) The figures of the
  -- group's latest stored run before the changed minute are those of its last change before it: a
  -- change is a row of the group, so a later change would be a later run. Read from the recent
  -- runs, not from every change of the history.
  UNION ALL
  SELECT app_id, market_hash_name, wear, doppler_phase, max(minute), arg_max_null(live_min_ask_usd, minute),
    arg_max_null(live_listed_count, minute)
  FROM recent
  GROUP BY app_id, market_hash_name, wear, doppler_phase
  UNION ALL
  -- A missing group's last change before the changed minute, from all its changes: read only when
  -- a group is missing (otherwise the first condition excludes every row, and DuckDB skips the
  -- table by its minute ranges).
  SELECT c.app_id, c.market_hash_name, c.wear, c.doppler_phase, max(c.minute), arg_max_null(c.min_ask_usd, c.minute),
    arg_max_null(c.listed_count, c.minute)
  FROM int_live_minask_changes c
  SEMI JOIN missing n
    ON n.app_id = c.app_id AND n.market_hash_name = c.market_hash_name
    AND n.wear IS NOT DISTINCT FROM c.wear AND n.doppler_phase IS NOT DISTINCT FROM c.doppler_phase
  WHERE c.minute >= (
      SELECT CASE WHEN count(*) = 0 THEN TIMESTAMP 'infinity' ELSE TIMESTAMP '-infinity' END FROM missing
    )
    AND c.minute < (SELECT minute FROM changed)
  GROUP BY c.app_id, c.market_hash_name, c.wear, c.doppler_phase
{% endif %}
),
carried AS (
  -- One pass per group in time order carries each side's latest figure forward; at a minute with
  -- both, the live change sorts first so the service row sees it.
  SELECT app_id, market_hash_name, wear, doppler_phase, minute,
    last_value(CASE WHEN side = 0 THEN {'ask': min_ask_usd, 'count': listed_count} END IGNORE NULLS) OVER w AS live,
    last_value(CASE WHEN side = 1 THEN {'minute': minute, 'ask': min_ask_usd, 'count': listed_count} END
      IGNORE NULLS) OVER w AS listed,
    lead(minute) OVER w AS next_minute
  FROM (
    SELECT app_id, market_hash_name, wear, doppler_phase, minute, 0 AS side, min_ask_usd, listed_count FROM live
    UNION ALL
    SELECT app_id, market_hash_name, wear, doppler_phase, minute, 1, min_ask_usd, listed_count FROM service
  )
  WINDOW w AS (PARTITION BY app_id, market_hash_name, wear, doppler_phase ORDER BY minute, side
    ROWS UNBOUNDED PRECEDING)
),
group_minutes AS (
  -- The group's rows from the changed minute on: the last row of each group and minute holds both
  -- sides; a row continues the run before it only at a fetch minute.
  SELECT c.app_id, c.market_hash_name, c.wear, c.doppler_phase, c.minute, c.minute AS last_row,
    CASE WHEN m.fetched THEN m.previous_fetch END AS continues_after,
    coalesce(c.listed.minute = m.list_minute, false) AS listed,
    CASE WHEN c.listed.minute = m.list_minute THEN c.listed.ask END AS service_min_ask_usd,
    CASE WHEN c.listed.minute = m.list_minute THEN c.listed.count END AS service_listed_count,
    c.live.ask AS live_min_ask_usd,
    coalesce(c.live.count, 0) AS live_listed_count
  FROM carried c
  JOIN minutes m ON m.app_id = c.app_id AND m.minute = c.minute
  WHERE c.next_minute IS DISTINCT FROM c.minute
),
{% if is_incremental %}
kept AS (
  -- The stored runs above are written again (their rows before the changed minute stand).
  SELECT app_id, market_hash_name, wear, doppler_phase, minute,
    CASE WHEN last_minute < (SELECT minute FROM changed) THEN last_minute
      ELSE greatest(minute, list_minute) END AS last_row,
    NULL::TIMESTAMP AS continues_after, listed, service_min_ask_usd, service_listed_count,
    live_min_ask_usd, live_listed_count
  FROM stored
),
{% endif %}
steps AS (
  SELECT * FROM group_minutes
{% if is_incremental %}
  UNION ALL
  SELECT * FROM kept
{% endif %}
),
runs AS (
  -- A row starts a run unless it is at the fetch minute after the run's last row, with the same
  -- figures, on the same UTC day: a run never spans two days, so the lake moves whole runs by day.
  SELECT *, sum(CASE WHEN continues_after = previous_row AND figures IS NOT DISTINCT FROM previous_figures
      AND date_trunc('day', minute) = date_trunc('day', previous_row) THEN 0 ELSE 1 END)
      OVER (PARTITION BY app_id, market_hash_name, wear, doppler_phase ORDER BY minute ROWS UNBOUNDED PRECEDING)
      AS run
  FROM (
    SELECT *, lag(last_row) OVER g AS previous_row, lag(figures) OVER g AS previous_figures
    FROM (
      SELECT *, {'listed': listed, 'ask': service_min_ask_usd, 'count': service_listed_count,
        'live_ask': live_min_ask_usd, 'live_count': live_listed_count} AS figures
      FROM steps
    )
    WINDOW g AS (PARTITION BY app_id, market_hash_name, wear, doppler_phase ORDER BY minute)
  )
)
SELECT app_id, market_hash_name, wear, doppler_phase, min(minute) AS minute, max(last_row) AS last_minute,
  any_value(listed) AS listed, any_value(service_min_ask_usd) AS service_min_ask_usd,
  any_value(service_listed_count) AS service_listed_count, any_value(live_min_ask_usd) AS live_min_ask_usd,
  any_value(live_listed_count) AS live_listed_count, {{ watermark }} AS built_watermark
FROM runs
GROUP BY app_id, market_hash_name, wear, doppler_phase, run
{% if is_incremental %}
UNION ALL
-- Per group with stored runs from the changed minute on, a row that replaces them and is not
-- written (delete_when): a group the lists from then on no longer list, and whose live set did not
-- change, has no new row to replace a run an earlier fetch of the minute left.
SELECT app_id, market_hash_name, wear, doppler_phase, min(minute), NULL, NULL, NULL, NULL, NULL, NULL,
  {{ watermark }}
FROM {{ this }}
WHERE minute >= (SELECT minute FROM changed)
GROUP BY app_id, market_hash_name, wear, doppler_phase
{% else %}
-- Stored in time order (each part of the build sorted), so the increments' reads of the runs near
-- the changed minute and their replacement skip the rest of the table by its minute ranges.
ORDER BY minute
{% endif %}
