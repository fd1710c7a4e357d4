-- The ledger with the columns and meaning of the former landing table.
SELECT transaction_id, {{columns(transaction)}}, observed_at, load_id, ingested_at
FROM account_transactions_typed
