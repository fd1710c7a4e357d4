-- The cheapest ask and listed count of each group (item name, wear, Doppler phase), recomputed from
-- the collector's own listings, at the end of every minute in which the group's live set changed
-- (a spell started or ended). Between two rows the figures stand. To keep the join bounded, each
-- spell is matched only against minutes of the hours it overlaps. An incremental build recomputes,
-- for the groups of the listings with sightings or departures landed since its last build, the
-- minutes from the earliest time those happened (whether a listing is live at a time, and at which
-- ask, follows from its sightings and departures before that time alone, so a row landing late
-- changes nothing earlier than when it happened), and replaces the group's rows from there on; it
-- reads the spells once, only those not ended before the earliest of those times (the open ones
-- and the few that ended since), not every spell of the history twice.
-- A full build runs in chunks of groups (by a hash), each matched only against its own spells.
-- Grain: one row per group and minute of change.
-- materialized: incremental
-- depends_on: int_listing_spells, stg_listing_appearances, stg_listing_departures
-- unique_key: app_id, market_hash_name, wear, doppler_phase, minute
-- lake: minute
-- replace_from: minute
-- chunks: 8
-- test: unique(app_id, market_hash_name, wear, doppler_phase, minute)
-- test: not_null(app_id, market_hash_name, minute, listed_count, built_watermark)
-- test: expression((listed_count = 0) = (min_ask_usd IS NULL))
WITH
{% if is_incremental %}
landed AS MATERIALIZED (
  -- Per listing with rows landed since the last build, the earliest time one of them happened.
  SELECT app_id, listing_id, min(happened_at) AS happened_at
  FROM (
    SELECT app_id, listing_id, seen_at AS happened_at FROM stg_listing_appearances WHERE ingested_at >= {{ since }}
    UNION ALL
    SELECT app_id, listing_id, left_at FROM stg_listing_departures WHERE ingested_at >= {{ since }}
  )
  GROUP BY ALL
),
read_spells AS MATERIALIZED (
  -- The spells read, once: those not ended before the minute of the earliest row landed since. A
  -- spell that ended before it counts at no minute rebuilt, and no row landed since changes it.
  SELECT app_id, listing_id, market_hash_name, wear, doppler_phase, started_at, ended_at, ask_usd
  FROM int_listing_spells
  WHERE coalesce(ended_at, TIMESTAMP 'infinity') >= (SELECT date_trunc('minute', min(happened_at)) FROM landed)
),
{% endif %}
affected AS (
  -- Per group, the first minute whose live set may differ from what is built (all of them in a full build).
  {% if is_incremental %}
  SELECT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, min(date_trunc('minute', n.happened_at)) AS from_minute
  FROM read_spells s
  JOIN landed n ON n.app_id = s.app_id AND n.listing_id = s.listing_id
  GROUP BY ALL
  {% else %}
  SELECT app_id, market_hash_name, wear, doppler_phase, min(date_trunc('minute', started_at)) AS from_minute
  FROM int_listing_spells
  WHERE {{ in_chunk(app_id, market_hash_name, wear, doppler_phase) }}
  GROUP BY ALL
  {% endif %}
),
spells AS (
  SELECT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, s.started_at, s.ended_at, s.ask_usd, a.from_minute
  FROM {% if is_incremental %}read_spells{% else %}int_listing_spells{% endif %} s
  JOIN affected a
    ON a.app_id = s.app_id AND a.market_hash_name = s.market_hash_name
    AND a.wear IS NOT DISTINCT FROM s.wear AND a.doppler_phase IS NOT DISTINCT FROM s.doppler_phase
  WHERE coalesce(s.ended_at, TIMESTAMP 'infinity') >= a.from_minute
),
minutes AS (
  SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, minute
  FROM (
    SELECT app_id, market_hash_name, wear, doppler_phase, from_minute, date_trunc('minute', started_at) AS minute FROM spells
    UNION ALL
    SELECT app_id, market_hash_name, wear, doppler_phase, from_minute, date_trunc('minute', ended_at) FROM spells
    WHERE ended_at IS NOT NULL
  )
  WHERE minute >= from_minute
),
last_minute AS (SELECT max(minute) AS minute FROM minutes),
spell_hours AS (
  -- A spell counts at the end of minute m when started_at < m + 1 min <= ended_at: so for the
  -- minutes from started_at - 1 min to ended_at - 1 min, in these hours.
  SELECT s.*, unnest(generate_series(
    date_trunc('hour', greatest(s.started_at - INTERVAL 1 MINUTE, s.from_minute)),
    date_trunc('hour', coalesce(s.ended_at - INTERVAL 1 MINUTE, (SELECT minute FROM last_minute))),
    INTERVAL 1 HOUR)) AS hour
  FROM spells s
)
SELECT m.app_id, m.market_hash_name, m.wear, m.doppler_phase, m.minute,
  min(s.ask_usd) AS min_ask_usd,
  count(s.ask_usd) AS listed_count,
  {{ watermark }} AS built_watermark
FROM minutes m
LEFT JOIN spell_hours s
  ON s.app_id = m.app_id AND s.market_hash_name = m.market_hash_name
  AND s.wear IS NOT DISTINCT FROM m.wear AND s.doppler_phase IS NOT DISTINCT FROM m.doppler_phase
  AND s.hour = date_trunc('hour', m.minute)
  AND s.started_at < m.minute + INTERVAL 1 MINUTE
  -- One range condition, no OR: with an OR the planner falls back to a nested-loop join.
  AND coalesce(s.ended_at, TIMESTAMP 'infinity') >= m.minute + INTERVAL 1 MINUTE
GROUP BY ALL
{% if is_incremental %}{% else %}
-- Stored in time order (each part of the build sorted), so reads from a minute on (int_minask_spells,
-- int_minask_minutes) and an increment's replacement skip the rest of the table by its minute ranges.
ORDER BY minute
{% endif %}
