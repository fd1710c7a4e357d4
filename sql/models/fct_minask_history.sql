-- Cheapest ask and listed count per group (item name, wear, Doppler phase) and minute, twice, side
-- by side: as the service's price list in force at the end of the minute said it (the CS2 snapshot
-- file; the /prices list for the other games), and as recomputed from the listings the collector
-- itself holds. Each side says how old it is at the end of the minute: the service list by its
-- generation time (a 304 keeps an old list in force, and its age grows), the collector's figure
-- by its latest landing from the stream, a poll or a sweep (none for a minute that ended before the
-- first landing: listings listed earlier are known from what landed later). A row exists for every minute with a
-- fetched list that lists the group, and every minute the group's live set changed.
-- A view: no table holds a row per group and minute in which nothing changed. The group's figures
-- are stored where they change (int_minask_spells: a run of minutes with the same figures) and the
-- game's per minute (int_minask_minutes: the list in force, the latest landing); each run's rows
-- are its first minute and every minute with a fetched list up to its last. `built_watermark` is
-- the build that last wrote the minute. Read it filtered by `minute`.
-- Grain: one row per group and minute (UTC).
-- materialized: view
-- depends_on: int_minask_spells, int_minask_minutes
-- export: CAST(minute AS DATE)
-- test: unique(app_id, market_hash_name, wear, doppler_phase, minute)
-- test: not_null(app_id, market_hash_name, minute, live_listed_count, built_watermark)
-- test: accepted_values(service_source: 'snapshot', 'prices')
-- test: expression(coalesce(service_age_seconds, 0) >= 0 AND coalesce(live_age_seconds, 0) >= 0)
-- test: expression(live_listed_count = 0 OR live_as_of IS NOT NULL OR minute + INTERVAL 1 MINUTE <= (SELECT min(started_at) FROM loads WHERE source = 'stream' OR source LIKE 'poll%' OR source LIKE 'sweep%'))
-- test: expression((coalesce(service_listed_count, 0) = 0) = (service_min_ask_usd IS NULL))
-- test: relationships(app_id, market_hash_name -> dim_items)
SELECT s.app_id, s.market_hash_name, s.wear, s.doppler_phase, m.minute, m.service_source,
  s.service_min_ask_usd,
  CASE WHEN s.listed THEN s.service_listed_count WHEN m.list_minute IS NOT NULL THEN 0 END AS service_listed_count,
  CASE WHEN s.listed THEN m.service_generated_at END AS service_generated_at,
  m.service_fetched_at, s.live_min_ask_usd, s.live_listed_count,
  date_diff('millisecond', coalesce(CASE WHEN s.listed THEN m.service_generated_at END, m.service_fetched_at),
    m.minute + INTERVAL 1 MINUTE) / 1000.0 AS service_age_seconds,
  m.live_as_of,
  date_diff('millisecond', m.live_as_of, m.minute + INTERVAL 1 MINUTE) / 1000.0 AS live_age_seconds,
  s.service_min_ask_usd - s.live_min_ask_usd AS min_ask_diff_usd,
  m.built_watermark
FROM int_minask_spells s
-- A range join on one key (a game's minutes numbered apart from the other games'), so DuckDB sorts
-- both sides once rather than pairing every run of a game with every minute of it.
JOIN int_minask_minutes m
  ON s.app_id::BIGINT * 100000000 + epoch_ms(s.minute) // 60000 <= m.app_id::BIGINT * 100000000 + epoch_ms(m.minute) // 60000
  AND s.app_id::BIGINT * 100000000 + epoch_ms(s.last_minute) // 60000 >= m.app_id::BIGINT * 100000000 + epoch_ms(m.minute) // 60000
WHERE m.app_id = s.app_id AND (m.minute = s.minute OR m.fetched)
