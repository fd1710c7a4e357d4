-- Each listing's life on the market as the collector saw it: first seen, last seen, when it left
-- (null while it is live), total time on the market over all its stays (a live stay counts up to
-- its last sighting), first and current ask, how many asks it had, how many stays, and whether it
-- came back after leaving (re-listed; also when the stay it left was before the collector saw it).
-- Grain: one row per listing. A full build runs in chunks of listings: its aggregate of every
-- listing's spells at once did not fit a 640 MB memory limit at 10,000,000 events. Stored in group
-- order (rewritten so at each lake move): the history routes read one group's listings.
-- materialized: incremental
-- chunks: 4
-- order_by: app_id, market_hash_name, wear, doppler_phase
-- depends_on: int_listing_spells
-- unique_key: app_id, listing_id
-- export: CAST(first_seen_at AS DATE)
-- test: unique(app_id, listing_id)
-- test: not_null(app_id, listing_id, first_seen_at, last_seen_at, seconds_on_market, asks, stays, relisted, is_live)
-- test: expression((stays = 1 OR relisted) AND asks >= stays AND is_live = (gone_at IS NULL) AND seconds_on_market >= 0)
-- test: row_count(= SELECT count(*) FROM (SELECT DISTINCT app_id, listing_id FROM int_listing_spells))
-- test: relationships(app_id, market_hash_name -> dim_items)
WITH touched AS (
  SELECT DISTINCT app_id, listing_id FROM int_listing_spells
  WHERE updated_at >= {{ since }} AND {{ in_chunk(listing_id) }}
)
SELECT s.app_id, s.listing_id,
  arg_max(s.market_hash_name, s.spell) AS market_hash_name,
  arg_max(s.wear, s.spell) AS wear,
  arg_max(s.doppler_phase, s.spell) AS doppler_phase,
  min(s.started_at) AS first_seen_at,
  max(s.last_seen_at) AS last_seen_at,
  arg_max_null(s.ended_at, s.spell) AS gone_at,
  sum(date_diff('millisecond', s.started_at, coalesce(s.ended_at, s.last_seen_at))) / 1000.0 AS seconds_on_market,
  arg_min(s.ask_usd, s.spell) AS first_ask_usd,
  arg_max(s.ask_usd, s.spell) AS ask_usd,
  count(*) AS asks,
  max(s.stay) AS stays,
  bool_or(s.after_departure) AS relisted,
  arg_max_null(s.ended_at, s.spell) IS NULL AS is_live
FROM int_listing_spells s
SEMI JOIN touched USING (app_id, listing_id)
GROUP BY s.app_id, s.listing_id
