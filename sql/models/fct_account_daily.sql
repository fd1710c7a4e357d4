-- The key owner's account per day (UTC, service clock): purchases, refunds, sales, fees and other
-- movements, the net flow, and the opening and closing balance, from the landed ledger.
-- Grain: one row per day with at least one ledger row (the warehouse holds one key's account).
-- materialized: table
-- export: day
-- test: unique(day)
-- test: not_null(day, transactions, net_flow_usd, opening_balance_usd, closing_balance_usd)
-- test: expression(closing_balance_usd = opening_balance_usd + net_flow_usd)
-- test: expression(closing_balance_usd IN (SELECT a.balance_after_usd FROM account_transactions a WHERE a.created_at = (SELECT max(b.created_at) FROM account_transactions b WHERE CAST(b.created_at AS DATE) = day)))
-- test: row_count(= SELECT count(DISTINCT CAST(created_at AS DATE)) FROM account_transactions)
WITH t AS (
  SELECT transaction_id, type, amount_usd, balance_after_usd, created_at, CAST(created_at AS DATE) AS day
  FROM account_transactions
),
-- Rows posted at the same instant are ordered by their balances: a row follows the one whose
-- balance_after_usd is its own balance before.
last_rows AS (
  SELECT t.day, t.balance_after_usd
  FROM t
  WHERE t.created_at = (SELECT max(created_at) FROM t l WHERE l.day = t.day)
    AND NOT EXISTS (
      SELECT 1 FROM t n
      WHERE n.created_at = t.created_at AND n.transaction_id <> t.transaction_id
        AND n.balance_after_usd - n.amount_usd = t.balance_after_usd
    )
),
first_rows AS (
  SELECT t.day, t.balance_after_usd - t.amount_usd AS balance_before_usd
  FROM t
  WHERE t.created_at = (SELECT min(created_at) FROM t f WHERE f.day = t.day)
    AND NOT EXISTS (
      SELECT 1 FROM t p
      WHERE p.created_at = t.created_at AND p.transaction_id <> t.transaction_id
        AND p.balance_after_usd = t.balance_after_usd - t.amount_usd
    )
)
SELECT t.day,
  count(*) AS transactions,
  CAST(coalesce(-sum(t.amount_usd) FILTER (WHERE t.type = 'purchase'), 0) AS DECIMAL(18, 2)) AS purchases_usd,
  CAST(coalesce(sum(t.amount_usd) FILTER (WHERE t.type = 'refund'), 0) AS DECIMAL(18, 2)) AS refunds_usd,
  CAST(coalesce(sum(t.amount_usd) FILTER (WHERE t.type = 'sale'), 0) AS DECIMAL(18, 2)) AS sales_usd,
  CAST(coalesce(-sum(t.amount_usd) FILTER (WHERE t.type = 'fee'), 0) AS DECIMAL(18, 2)) AS fees_usd,
  CAST(coalesce(sum(t.amount_usd) FILTER (WHERE t.type NOT IN ('purchase', 'refund', 'sale', 'fee')), 0) AS DECIMAL(18, 2)) AS other_usd,
  CAST(sum(t.amount_usd) AS DECIMAL(18, 2)) AS net_flow_usd,
  CAST(any_value(f.balance_before_usd) AS DECIMAL(18, 2)) AS opening_balance_usd,
  CAST(any_value(l.balance_after_usd) AS DECIMAL(18, 2)) AS closing_balance_usd
FROM t
LEFT JOIN (SELECT day, any_value(balance_before_usd) AS balance_before_usd FROM first_rows GROUP BY day) f ON f.day = t.day
LEFT JOIN (SELECT day, any_value(balance_after_usd) AS balance_after_usd FROM last_rows GROUP BY day) l ON l.day = t.day
GROUP BY t.day
