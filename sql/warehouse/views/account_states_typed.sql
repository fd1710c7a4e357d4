-- Every state of an order, a P2P listing or a sell order: its status and updated_at typed, the
-- object kept whole in body, extra_fields the keys its kind's contract schema does not name. A
-- state without its object's id is in rejected_payloads.
SELECT r.kind, r.object_id, r.app_id, r.observed_at, CAST(r.data AS JSON) AS body, r.load_id, r.ingested_at,
       {{typed_columns(order, r.j, r.keys)}},
       {{extra_keys(order, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(order, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_account_states r
  WHERE r.kind = 'order' AND ({{rejection(order, r.data)}}) IS NULL
) r
UNION ALL BY NAME
SELECT r.kind, r.object_id, r.app_id, r.observed_at, CAST(r.data AS JSON) AS body, r.load_id, r.ingested_at,
       {{typed_columns(p2p_listing, r.j, r.keys)}},
       {{extra_keys(p2p_listing, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(p2p_listing, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_account_states r
  WHERE r.kind = 'p2p_listing' AND ({{rejection(p2p_listing, r.data)}}) IS NULL
) r
UNION ALL BY NAME
SELECT r.kind, r.object_id, r.app_id, r.observed_at, CAST(r.data AS JSON) AS body, r.load_id, r.ingested_at,
       {{typed_columns(sell_order, r.j, r.keys)}},
       {{extra_keys(sell_order, r.data, r.keys)}} AS extra_fields, r.data AS raw
FROM (
  SELECT r.*, {{json_values(sell_order, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_account_states r
  WHERE r.kind = 'sell_order' AND ({{rejection(sell_order, r.data)}}) IS NULL
) r
