-- The snapshot's rows with the columns and meaning of the former landing table.
SELECT etag, generated_at, fetched_at, {{columns(price_row)}}, load_id, ingested_at
FROM price_snapshots_typed
