-- Each account per day (UTC, service clock): purchases, refunds, sales, fees and other
-- movements, the net flow, and the opening and closing balance, from the landed ledger. The
-- closing balance is the running sum of the rows (the service's balance is the sum of the ledger):
-- tests check it is the balance_after_usd of a row at the day's last instant, and the opening one
-- the balance before a row at its first instant.
-- The account of a row is the one its load was collected for (`loads.account_id`, from GET
-- /balance): a warehouse that saw two keys' accounts keeps them apart; rows landed before the
-- account was kept have a null account_id.
-- Grain: one row per account and day with at least one ledger row.
-- materialized: table
-- export: day
-- test: unique(account_id, day)
-- test: not_null(day, transactions, net_flow_usd, opening_balance_usd, closing_balance_usd)
-- test: expression(opening_balance_usd IN (SELECT a.balance_after_usd - a.amount_usd FROM account_transactions a JOIN loads l USING (load_id) WHERE l.account_id IS NOT DISTINCT FROM fct_account_daily.account_id AND a.created_at = (SELECT min(b.created_at) FROM account_transactions b JOIN loads m USING (load_id) WHERE m.account_id IS NOT DISTINCT FROM fct_account_daily.account_id AND CAST(b.created_at AS DATE) = fct_account_daily.day)))
-- test: expression(closing_balance_usd IN (SELECT a.balance_after_usd FROM account_transactions a JOIN loads l USING (load_id) WHERE l.account_id IS NOT DISTINCT FROM fct_account_daily.account_id AND a.created_at = (SELECT max(b.created_at) FROM account_transactions b JOIN loads m USING (load_id) WHERE m.account_id IS NOT DISTINCT FROM fct_account_daily.account_id AND CAST(b.created_at AS DATE) = fct_account_daily.day)))
-- test: row_count(= SELECT count(DISTINCT (l.account_id, CAST(a.created_at AS DATE))) FROM account_transactions a JOIN loads l USING (load_id))
-- The collector lands the whole ledger from its first row, so the balance at the end of a day is
-- the running sum of every row up to it, whatever order rows posted at one instant came in (their
-- balance_after_usd values alone cannot order rows of one instant that go round, e.g. a purchase
-- and its refund).
WITH t AS (
  SELECT l.account_id AS account_id, a.type, a.amount_usd, CAST(a.created_at AS DATE) AS day
  FROM account_transactions a
  JOIN loads l USING (load_id)
),
days AS (
  SELECT account_id, day,
    count(*) AS transactions,
    CAST(coalesce(-sum(amount_usd) FILTER (WHERE type = 'purchase'), 0) AS DECIMAL(18, 2)) AS purchases_usd,
    CAST(coalesce(sum(amount_usd) FILTER (WHERE type = 'refund'), 0) AS DECIMAL(18, 2)) AS refunds_usd,
    CAST(coalesce(sum(amount_usd) FILTER (WHERE type = 'sale'), 0) AS DECIMAL(18, 2)) AS sales_usd,
    CAST(coalesce(-sum(amount_usd) FILTER (WHERE type = 'fee'), 0) AS DECIMAL(18, 2)) AS fees_usd,
    CAST(coalesce(sum(amount_usd) FILTER (WHERE type NOT IN ('purchase', 'refund', 'sale', 'fee')), 0) AS DECIMAL(18, 2)) AS other_usd,
    CAST(sum(amount_usd) AS DECIMAL(18, 2)) AS net_flow_usd
  FROM t
  GROUP BY account_id, day
)
SELECT account_id, day, transactions, purchases_usd, refunds_usd, sales_usd, fees_usd, other_usd, net_flow_usd,
  CAST(sum(net_flow_usd) OVER (PARTITION BY account_id ORDER BY day) - net_flow_usd AS DECIMAL(18, 2))
    AS opening_balance_usd,
  CAST(sum(net_flow_usd) OVER (PARTITION BY account_id ORDER BY day) AS DECIMAL(18, 2)) AS closing_balance_usd
FROM days
