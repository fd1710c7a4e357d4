-- Every ledger row typed leniently as a Transaction; a row without a string id cannot be told
-- apart and is in rejected_payloads.
SELECT r.transaction_id, r.observed_at, r.load_id, r.ingested_at,
       {{typed_columns(transaction, r.j, r.keys)}},
       {{extra_keys(transaction, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(transaction, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_account_transactions r
  WHERE ({{rejection(transaction, r.data)}}) IS NULL
) r
