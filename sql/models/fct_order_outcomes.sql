-- Every order of each account (`account_id`, the one its states were collected for) with its outcome: the path of statuses it was seen in, how
-- long the first offer and the completion took (as observed: the first landed state showing them),
-- the hold, the return reason and refund, and the cheapest ask of its first item's group when it
-- was bought (the newest minAsk list generated at or before ordered_at) with the slippage paid over it.
-- The minAsk lists are read typed from stg_price_lists (`list_id` is the list's own generation
-- time), for the orders' item names alone, so no price row is parsed again.
-- Grain: one row per order.
-- materialized: table
-- depends_on: stg_price_lists
-- export: CAST(ordered_at AS DATE)
-- test: unique(order_id)
-- test: not_null(order_id, app_id, ordered_at, status, status_path, charged_total_usd)
-- test: accepted_values(status: 'pending', 'delivering', 'hold', 'completed', 'cancelled', 'failed')
-- test: row_count(= SELECT count(DISTINCT object_id) FROM account_states WHERE kind = 'order')
WITH states AS (
  SELECT a.object_id AS order_id, a.app_id, a.status, a.updated_at, a.body, l.account_id AS account_id,
    lag(a.status) OVER (PARTITION BY a.object_id ORDER BY a.updated_at) AS previous_status
  FROM account_states a
  LEFT JOIN loads l USING (load_id)
  WHERE a.kind = 'order'
),
orders AS (
  SELECT order_id, any_value(app_id) AS app_id, any_value(account_id) AS account_id,
    arg_max(body, updated_at) AS body,
    arg_max(status, updated_at) AS status,
    string_agg(status, ' > ' ORDER BY updated_at) FILTER (WHERE previous_status IS DISTINCT FROM status) AS status_path,
    min(updated_at) FILTER (WHERE json_extract_string(body, '$.items[0].steam_trade_offer_id') IS NOT NULL) AS first_offer_seen_at,
    min(updated_at) FILTER (WHERE status = 'completed') AS completed_at
  FROM states
  GROUP BY order_id
),
shaped AS (
  SELECT order_id, account_id, app_id, status, status_path, first_offer_seen_at, completed_at,
    CAST(CAST(json_extract_string(body, '$.created_at') AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS TIMESTAMP) AS ordered_at,
    CAST(CAST(json_extract_string(body, '$.hold_until') AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS TIMESTAMP) AS hold_until,
    CAST(json_extract(body, '$.item_count') AS INTEGER) AS item_count,
    json_extract_string(body, '$.delivery') AS delivery,
    CAST(CAST(json_extract(body, '$.charged_total_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS charged_total_usd,
    CAST(CAST(json_extract(body, '$.refund.amount_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS refund_usd,
    json_extract_string(body, '$.items[0].market_hash_name') AS market_hash_name,
    CAST(CAST(json_extract(body, '$.items[0].price_usd') AS DOUBLE) AS DECIMAL(18, 2)) AS first_item_price_usd,
    (SELECT min(json_extract_string(i, '$.return_reason'))
     FROM (SELECT unnest(CAST(json_extract(body, '$.items') AS JSON[])) AS i)) AS return_reason
  FROM orders
),
minask AS (
  SELECT app_id, market_hash_name, CAST(list_id AS TIMESTAMP) AS generated_at, min_ask_usd
  FROM stg_price_lists
  WHERE source = 'prices' AND market_hash_name IN (SELECT market_hash_name FROM shaped)
)
SELECT s.order_id, s.account_id, s.app_id, s.ordered_at, s.status, s.status_path, s.delivery, s.item_count,
  s.charged_total_usd, s.refund_usd, s.return_reason, s.market_hash_name, s.first_item_price_usd,
  date_diff('second', s.ordered_at, s.first_offer_seen_at) AS seconds_to_first_offer,
  date_diff('second', s.ordered_at, s.completed_at) AS seconds_to_completion,
  date_diff('second', s.ordered_at, s.hold_until) AS hold_seconds,
  m.min_ask_usd AS min_ask_at_purchase_usd,
  CAST(s.first_item_price_usd - m.min_ask_usd AS DECIMAL(18, 2)) AS slippage_usd
FROM shaped s
LEFT JOIN LATERAL (
  SELECT min(p.min_ask_usd) AS min_ask_usd
  FROM minask p
  WHERE p.app_id = s.app_id AND p.market_hash_name = s.market_hash_name
    AND p.generated_at = (
      SELECT max(q.generated_at) FROM minask q
      WHERE q.app_id = s.app_id AND q.market_hash_name = s.market_hash_name AND q.generated_at <= s.ordered_at
    )
) m ON true
