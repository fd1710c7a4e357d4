-- Every time the collectors learnt that a listing left the market: a `gone` event of the stream,
-- or a sweep or catch-up that no longer found it. `log_position` orders events received in the same
-- millisecond, as in stg_listing_appearances. Grain: one row per landed departure.
-- materialized: view
-- depends_on: stg_listing_events
-- test: not_null(app_id, listing_id, left_at, ingested_at)
-- test: accepted_values(via: 'stream', 'sweep', 'catch_up')
SELECT app_id, listing_id, received_at AS left_at, try_cast(regexp_extract(event_id, '(\d+)$', 1) AS BIGINT) AS log_position,
  'stream' AS via, ingested_at
FROM stg_listing_events
WHERE kind = 'gone'
UNION ALL
SELECT app_id, listing_id, detected_at, NULL, via, ingested_at
FROM listing_gone
