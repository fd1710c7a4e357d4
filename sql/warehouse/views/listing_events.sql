-- The stream's events with the columns and meaning of the former landing table.
SELECT event_id, kind, listing_id, app_id, {{columns(listing)}}, received_at, load_id, ingested_at
FROM listing_events_typed
