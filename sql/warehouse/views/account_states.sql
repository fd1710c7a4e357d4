-- The account's object states with the columns and meaning of the former landing table.
SELECT kind, object_id, app_id, status, updated_at, observed_at, body, load_id, ingested_at
FROM account_states_typed
