/**
 * The SQL behind the account charts of the report. The account side of the pipeline builds the
 * models they read (`fct_account_daily`, `fct_order_outcomes`); until a warehouse has them, the
 * report says so instead of drawing.
 */
import { type SectionQuery, timestampSql } from './market-sections.js';
import type { ReportWindow } from './report-window.js';

const dayFrom = (window: ReportWindow) => `CAST(${timestampSql(window.fromMs)} AS DATE)`;

/**
/**
 * The collector's own account: the one its latest account load was collected for. A warehouse of
 * loads before the account was kept has none, and then matches the rows without one.
 */
const OWN_ACCOUNT = `(SELECT account_id FROM loads WHERE source = 'account' AND account_id IS NOT NULL
  ORDER BY started_at DESC LIMIT 1)`;

/**
 * Per day of the window, for the collector's own account, the money trading moved (purchases,
 * refunds, sales, fees) and apart from it the money put in or taken out (deposits, withdrawals,
 * bonuses, adjustments): an opening deposit drowned the trading of the first day.
 */
export function netFlowQuery(window: ReportWindow): SectionQuery {
  return {
    needs: { fct_account_daily: ['day', 'net_flow_usd', 'other_usd', 'account_id'] },
    sql: `WITH days AS (
  SELECT CAST(day AS TIMESTAMP) AS t,
    CAST(sum(net_flow_usd - other_usd) AS DECIMAL(18, 2)) AS trading,
    CAST(sum(other_usd) AS DECIMAL(18, 2)) AS deposits
  FROM fct_account_daily
  WHERE account_id IS NOT DISTINCT FROM ${OWN_ACCOUNT}
    AND day BETWEEN ${dayFrom(window)} AND CAST(${timestampSql(window.toMs)} AS DATE)
  GROUP BY ALL
)
SELECT t, '${FLOWS.trading}' AS flow, trading AS amount_usd FROM days
UNION ALL
SELECT t, '${FLOWS.deposits}' AS flow, deposits AS amount_usd FROM days
ORDER BY t, flow DESC`,
  };
}

/** The two flows of the net flow chart, as its legend names them. */
export const FLOWS = { trading: 'trading', deposits: 'deposits and withdrawals' } as const;

/** Orders of the collector's own account per grain of the window by outcome: their status, or `returned: <reason>`. */
export function orderOutcomesQuery(window: ReportWindow): SectionQuery {
  return {
    needs: { fct_order_outcomes: ['ordered_at', 'status', 'return_reason', 'account_id'] },
    sql: `SELECT CAST(date_trunc('${window.grain}', ordered_at) AS TIMESTAMP) AS t,
  coalesce('returned: ' || return_reason, status) AS outcome, count(*) AS orders
FROM fct_order_outcomes
WHERE account_id IS NOT DISTINCT FROM ${OWN_ACCOUNT}
  AND ordered_at BETWEEN ${timestampSql(window.fromMs)} AND ${timestampSql(window.toMs)}
GROUP BY ALL
ORDER BY t, outcome`,
  };
}
