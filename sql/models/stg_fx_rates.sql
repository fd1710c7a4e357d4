-- FX rates as the service published them: units of each currency per 1 USD, in force from
-- `valid_from` (the service's update time) until the next update of that currency. USD itself is
-- a constant 1; a rate that did not type (see typing_notes in fx_rates_typed) stays out, so the one
-- before it stays in force. Grain: one row per currency and update.
-- materialized: view
-- test: unique(currency, valid_from)
-- test: not_null(currency, rate, valid_from)
-- test: expression(rate > 0)
SELECT currency, rate, updated_at AS valid_from, fetched_at, ingested_at
FROM fx_rates
WHERE currency <> 'USD' AND rate IS NOT NULL
UNION ALL
SELECT 'USD', 1.0, TIMESTAMP '1970-01-01', TIMESTAMP '1970-01-01', TIMESTAMP '1970-01-01'
