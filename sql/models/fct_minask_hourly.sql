-- fct_minask_history rolled up to hours: per group and hour, the lowest and the closing (last
-- minute's) cheapest ask and listed count of each side, and the oldest each side's figure got; and
-- the collector's own side's opening, highest, opening and highest listed count, first and last
-- minute: what a candle of an hour or longer needs (the history endpoint reads them here); and its
-- asks' histogram (each ask and its rows in the hour), whose sum over whole hours is the multiset
-- of a window's asks, so the same median and mean (the endpoint's stats read it).
-- A full build runs in chunks of groups (by a hash of the group): the histograms' states are held
-- in memory until the end, and 90 days of them at once did not fit in 610 MB.
-- It reads fct_minask_history's rows from the two tables behind that view (the same rows, see
-- fct_minask_history.sql), so that an increment reads only the runs that reach the hours it rolls
-- up again: those of the minutes a build since wrote.
-- Grain: one row per group and hour (UTC).
-- materialized: incremental
-- depends_on: int_minask_spells, int_minask_minutes
-- unique_key: app_id, market_hash_name, wear, doppler_phase, hour
-- delete_when: minutes IS NULL
-- chunks: 4
-- lake: hour
-- order_by: app_id, market_hash_name, wear, doppler_phase, hour
-- export: CAST(hour AS DATE)
-- test: unique(app_id, market_hash_name, wear, doppler_phase, hour)
-- test: not_null(app_id, market_hash_name, hour, minutes, built_watermark)
-- test: row_count(= SELECT count(*) FROM (SELECT DISTINCT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, date_trunc('hour', m.minute) FROM int_minask_spells s JOIN int_minask_minutes m ON m.app_id = s.app_id AND m.minute BETWEEN s.minute AND s.last_minute AND (m.minute = s.minute OR m.fetched)))
WITH hours AS (
  -- The hours of the minutes built since: each is rolled up again for the groups with rows in them.
  SELECT DISTINCT app_id, date_trunc('hour', minute) AS hour
  FROM int_minask_minutes
  WHERE built_watermark > {{ since }}
),
minutes AS (
  SELECT m.*, date_trunc('hour', m.minute) AS hour, m.built_watermark > {{ since }} AS rebuilt
  FROM int_minask_minutes m
  SEMI JOIN hours h ON h.app_id = m.app_id AND h.hour = date_trunc('hour', m.minute)
  WHERE m.minute >= (SELECT min(hour) FROM hours)
),
run_hours AS (
  -- Each run in every hour it spans (a run ends within its day): its rows are the game's minutes
  -- of those hours within its bounds, so the runs are joined to the minutes by game and hour, not
  -- by a range over every minute.
  SELECT s.*, unnest(generate_series(date_trunc('hour', s.minute), date_trunc('hour', s.last_minute), INTERVAL 1 HOUR))
    AS hour
  FROM int_minask_spells s
  WHERE s.last_minute >= (SELECT min(hour) FROM hours) AND s.minute >= (SELECT CAST(CAST(min(hour) AS DATE) AS TIMESTAMP) FROM hours)
    AND {{ in_chunk(s.market_hash_name, s.wear, s.doppler_phase) }}
),
history AS (
  -- fct_minask_history's rows of those hours, as its view reads them.
  SELECT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, m.minute, m.rebuilt, s.service_min_ask_usd,
    CASE WHEN s.listed THEN s.service_listed_count WHEN m.list_minute IS NOT NULL THEN 0 END AS service_listed_count,
    date_diff('millisecond', coalesce(CASE WHEN s.listed THEN m.service_generated_at END, m.service_fetched_at),
      m.minute + INTERVAL 1 MINUTE) / 1000.0 AS service_age_seconds,
    s.live_min_ask_usd, s.live_listed_count,
    date_diff('millisecond', m.live_as_of, m.minute + INTERVAL 1 MINUTE) / 1000.0 AS live_age_seconds
  FROM run_hours s
  JOIN minutes m ON m.app_id = s.app_id AND m.hour = s.hour
  WHERE m.minute BETWEEN s.minute AND s.last_minute AND (m.minute = s.minute OR m.fetched)
)
{% if is_incremental %}
, touched AS (
  -- The group hours with a rebuilt minute. A full build rolls up every hour: reading the history once
  -- more to find them would keep every row of it (a relation read twice is materialized).
  SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, date_trunc('hour', minute) AS hour
  FROM history
  WHERE rebuilt
)
{% endif %}
SELECT h.app_id, h.market_hash_name, h.wear, h.doppler_phase, date_trunc('hour', h.minute) AS hour,
  count(*) AS minutes,
  min(h.service_min_ask_usd) AS service_min_ask_low_usd,
  arg_max_null(h.service_min_ask_usd, h.minute) AS service_min_ask_close_usd,
  arg_max_null(h.service_listed_count, h.minute) AS service_listed_count_close,
  max(h.service_age_seconds) AS service_age_max_seconds,
  min(h.live_min_ask_usd) AS live_min_ask_low_usd,
  arg_max_null(h.live_min_ask_usd, h.minute) AS live_min_ask_close_usd,
  arg_max_null(h.live_listed_count, h.minute) AS live_listed_count_close,
  max(h.live_age_seconds) AS live_age_max_seconds,
  arg_min_null(h.live_min_ask_usd, h.minute) AS live_min_ask_open_usd,
  max(h.live_min_ask_usd) AS live_min_ask_high_usd,
  arg_min_null(h.live_listed_count, h.minute) AS live_listed_count_open,
  max(h.live_listed_count) AS live_listed_count_max,
  min(h.minute) AS first_minute,
  max(h.minute) AS last_minute,
  histogram(h.live_min_ask_usd) AS live_min_ask_histogram,
  {{ watermark }} AS built_watermark
FROM history h
{% if is_incremental %}
SEMI JOIN touched t
  ON t.app_id = h.app_id AND t.market_hash_name = h.market_hash_name AND t.wear IS NOT DISTINCT FROM h.wear
  AND t.doppler_phase IS NOT DISTINCT FROM h.doppler_phase AND t.hour = date_trunc('hour', h.minute)
{% endif %}
GROUP BY ALL
{% if is_incremental %}
UNION ALL
-- The stored rows of the hours rolled up again whose group has no row left in the hour (a later
-- download of its minute no longer lists it), as rows that replace them and are not written
-- (delete_when): the group has no new row to replace the old one by.
SELECT t.app_id, t.market_hash_name, t.wear, t.doppler_phase, t.hour, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {{ watermark }}
FROM {{ this }} t
SEMI JOIN hours h ON h.app_id = t.app_id AND h.hour = t.hour
ANTI JOIN history r
  ON r.app_id = t.app_id AND r.market_hash_name = t.market_hash_name AND r.wear IS NOT DISTINCT FROM t.wear
  AND r.doppler_phase IS NOT DISTINCT FROM t.doppler_phase AND date_trunc('hour', r.minute) = t.hour
WHERE t.hour >= (SELECT min(hour) FROM hours)
{% endif %}
