-- FX rates with the columns and meaning of the former landing table.
SELECT currency, rate, base, updated_at, fetched_at, load_id, ingested_at
FROM fx_rates_typed
