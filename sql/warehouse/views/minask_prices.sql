-- The minAsk lists' rows with the columns and meaning of the former landing table.
SELECT app_id, fetched_at, generated_at, {{columns(price_row)}}, load_id, ingested_at
FROM minask_prices_typed
