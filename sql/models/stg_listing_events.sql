-- Every landed stream event typed from what the stream sent (`listing_events_typed`, defined in
-- sql/warehouse/views/listing_events_typed.sql): listing_events' columns, then `typing_notes` (the fields
-- that were missing or did not cast, null in their column, with why) and `extra_fields` (JSON of
-- the keys no column types, e.g. a field the upstream added). A new column here, e.g.
-- `extra_fields->>'seller_rating' AS seller_rating`, is filled for the whole history by
-- `market models run --full-refresh`. Events that could not be typed at all are in `rejected_payloads`.
-- A full build types the history a day at a time (the bounds reach the raw table before any text is
-- parsed), so its memory does not grow with the history.
-- materialized: incremental
-- chunks: per day of raw_listing_events.ingested_at
-- unique_key: event_id
-- lake: received_at
-- test: unique(event_id)
-- test: not_null(listing_id, received_at)
-- test: typing_errors(warn, source: 'stream')
SELECT * EXCLUDE (raw)
FROM listing_events_typed
{% if is_incremental %}
WHERE ingested_at >= {{ since }}
{% else %}
WHERE {{ in_chunk(ingested_at) }}
{% endif %}
