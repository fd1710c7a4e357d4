-- fct_minask_hourly rolled up to days: per group and day, the lowest and the closing cheapest ask
-- and listed count of each side, and the oldest each side's figure got.
-- Grain: one row per group and day (UTC).
-- materialized: incremental
-- depends_on: fct_minask_hourly
-- unique_key: app_id, market_hash_name, wear, doppler_phase, day
-- delete_when: minutes IS NULL
-- lake: day
-- export: day
-- test: unique(app_id, market_hash_name, wear, doppler_phase, day)
-- test: not_null(app_id, market_hash_name, day, minutes)
-- test: row_count(= SELECT count(*) FROM (SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, CAST(hour AS DATE) FROM fct_minask_hourly))
WITH touched AS (
  SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, CAST(hour AS DATE) AS day
  FROM fct_minask_hourly
  WHERE built_watermark > {{ since }}
)
SELECT h.app_id, h.market_hash_name, h.wear, h.doppler_phase, CAST(h.hour AS DATE) AS day,
  CAST(sum(h.minutes) AS BIGINT) AS minutes,
  min(h.service_min_ask_low_usd) AS service_min_ask_low_usd,
  arg_max_null(h.service_min_ask_close_usd, h.hour) AS service_min_ask_close_usd,
  arg_max_null(h.service_listed_count_close, h.hour) AS service_listed_count_close,
  max(h.service_age_max_seconds) AS service_age_max_seconds,
  min(h.live_min_ask_low_usd) AS live_min_ask_low_usd,
  arg_max_null(h.live_min_ask_close_usd, h.hour) AS live_min_ask_close_usd,
  arg_max_null(h.live_listed_count_close, h.hour) AS live_listed_count_close,
  max(h.live_age_max_seconds) AS live_age_max_seconds
FROM fct_minask_hourly h
SEMI JOIN touched t
  ON t.app_id = h.app_id AND t.market_hash_name = h.market_hash_name AND t.wear IS NOT DISTINCT FROM h.wear
  AND t.doppler_phase IS NOT DISTINCT FROM h.doppler_phase AND t.day = CAST(h.hour AS DATE)
WHERE h.hour >= (SELECT min(day) FROM touched)
GROUP BY ALL
{% if is_incremental %}
UNION ALL
-- The stored rows of the days rolled up again whose group has no hour left in the day (see
-- fct_minask_hourly), as rows that replace them and are not written (delete_when).
SELECT d.app_id, d.market_hash_name, d.wear, d.doppler_phase, d.day, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL
FROM {{ this }} d
SEMI JOIN (SELECT DISTINCT app_id, day FROM touched) t ON t.app_id = d.app_id AND t.day = d.day
ANTI JOIN (SELECT * FROM fct_minask_hourly WHERE hour >= (SELECT min(day) FROM touched)) h
  ON h.app_id = d.app_id AND h.market_hash_name = d.market_hash_name AND h.wear IS NOT DISTINCT FROM d.wear
  AND h.doppler_phase IS NOT DISTINCT FROM d.doppler_phase AND CAST(h.hour AS DATE) = d.day
WHERE d.day >= (SELECT min(day) FROM touched)
{% endif %}
