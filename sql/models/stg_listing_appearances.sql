-- Every sighting of a listing on the market: a `new` event of the stream, or an observation by a
-- CS2 poll, a sweep or a catch-up. `log_position` is a stream event's position in the service's
-- event log (the number ending its id; null for observations): it orders events received in the
-- same millisecond. `sighting_id` tells a listing's sightings apart (`stream:` and the event id, or
-- `via:pass_id` of an observation): it orders sightings of one instant that nothing else orders,
-- such as a poll and a sweep that started in the same millisecond. Stream events are read typed from
-- stg_listing_events, so each is parsed once, as it is built. `typing_notes` names the fields that
-- did not type (null in their column). Grain: one row per landed sighting.
-- materialized: view
-- depends_on: stg_listing_events
-- test: not_null(app_id, listing_id, seen_at, ingested_at, sighting_id)
-- test: expression((market_hash_name IS NOT NULL AND price_usd IS NOT NULL) OR len(typing_notes) > 0)
-- test: accepted_values(via: 'stream', 'poll', 'sweep', 'catch_up')
-- test: unique(app_id, listing_id, sighting_id)
SELECT app_id, listing_id, received_at AS seen_at, try_cast(regexp_extract(event_id, '(\d+)$', 1) AS BIGINT) AS log_position,
  'stream' AS via, market_hash_name, wear, doppler_phase,
  float_value, paint_seed, coalesce(stickers, []) AS stickers, price_usd, category, rarity, listed_at, ingested_at,
  'stream:' || event_id AS sighting_id, typing_notes
FROM stg_listing_events
WHERE kind = 'new'
UNION ALL
SELECT app_id, listing_id, observed_at, NULL, via, market_hash_name, wear, doppler_phase,
  float_value, paint_seed, stickers, price_usd, category, rarity, listed_at, ingested_at,
  via || ':' || pass_id, typing_notes
FROM listing_observations_typed
