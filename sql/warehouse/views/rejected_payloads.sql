-- Every payload that could not be typed at all, with why: stream events, page items without an id
-- (under their via, event_id <pass_id>:<page>:<item>), snapshot lines, minAsk rows, FX answers and
-- the account's rows.
SELECT 'stream' AS source, event_id, kind, data AS raw, reason, received_at, load_id, ingested_at
FROM (SELECT r.*, {{rejection(listing, r.data, r.listing_id, r.kind)}} AS reason FROM raw_listing_events r)
WHERE reason IS NOT NULL
UNION ALL BY NAME
SELECT via AS source, pass_id || ':' || page || ':' || item AS event_id, CAST(NULL AS VARCHAR) AS kind,
       data AS raw, coalesce({{rejection(listing, r.data, r.listing_id, null)}}, 'no listing id') AS reason,
       observed_at AS received_at, load_id, ingested_at
FROM raw_listing_observations r WHERE listing_id IS NULL
UNION ALL BY NAME
SELECT 'snapshot' AS source, r.etag || ':' || r.line AS event_id, 'price_row' AS kind, r.data AS raw,
       r.fetched_at AS received_at, r.load_id, r.ingested_at, reason
FROM (SELECT r.*, {{rejection(price_row, r.data)}} AS reason FROM raw_price_snapshots r) r
WHERE reason IS NOT NULL
UNION ALL BY NAME
SELECT 'prices:' || r.app_id AS source, strftime(r.generated_at, '%Y-%m-%dT%H:%M:%S.%g') || ':' || r.position AS event_id,
       'price_row' AS kind, r.data AS raw, r.fetched_at AS received_at, r.load_id, r.ingested_at, reason
FROM (SELECT r.*, {{rejection(price_row, r.data)}} AS reason FROM raw_minask_prices r) r
WHERE reason IS NOT NULL
UNION ALL BY NAME
SELECT 'fx' AS source, strftime(r.updated_at, '%Y-%m-%dT%H:%M:%S.%g') AS event_id, 'fx_rates' AS kind, r.data AS raw,
       r.fetched_at AS received_at, r.load_id, r.ingested_at, reason
FROM (SELECT r.*, {{rejection(fx, r.data)}} AS reason FROM raw_fx_rates r) r
WHERE reason IS NOT NULL
UNION ALL BY NAME
SELECT 'account' AS source, r.transaction_id AS event_id, 'transaction' AS kind, r.data AS raw,
       r.observed_at AS received_at, r.load_id, r.ingested_at, reason
FROM (SELECT r.*, {{rejection(transaction, r.data)}} AS reason FROM raw_account_transactions r) r
WHERE reason IS NOT NULL
UNION ALL BY NAME
SELECT 'account' AS source, r.object_id AS event_id, r.kind, r.data AS raw,
       r.observed_at AS received_at, r.load_id, r.ingested_at, reason
FROM (SELECT r.*, {{rejection(order, r.data)}} AS reason FROM raw_account_states r) r
WHERE reason IS NOT NULL
