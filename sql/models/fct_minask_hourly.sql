-- fct_minask_history rolled up to hours: per group and hour, the lowest and the closing (last
-- minute's) cheapest ask and listed count of each side, and the oldest each side's figure got.
-- Grain: one row per group and hour (UTC).
-- materialized: incremental
-- depends_on: fct_minask_history
-- unique_key: app_id, market_hash_name, wear, doppler_phase, hour
-- export: CAST(hour AS DATE)
-- test: unique(app_id, market_hash_name, wear, doppler_phase, hour)
-- test: not_null(app_id, market_hash_name, hour, minutes, built_watermark)
-- test: row_count(= SELECT count(*) FROM (SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, date_trunc('hour', minute) FROM fct_minask_history))
WITH touched AS (
  SELECT DISTINCT app_id, market_hash_name, wear, doppler_phase, date_trunc('hour', minute) AS hour
  FROM fct_minask_history
  WHERE built_watermark > {{ since }}
)
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
  {{ watermark }} AS built_watermark
FROM fct_minask_history h
SEMI JOIN touched t
  ON t.app_id = h.app_id AND t.market_hash_name = h.market_hash_name AND t.wear IS NOT DISTINCT FROM h.wear
  AND t.doppler_phase IS NOT DISTINCT FROM h.doppler_phase AND t.hour = date_trunc('hour', h.minute)
WHERE h.minute >= (SELECT min(hour) FROM touched)
GROUP BY ALL
