/**
 * The SQL behind the account charts of the report. The account side of the pipeline builds the
 * models they read (`fct_account_daily`, `fct_order_outcomes`); until a warehouse has them, the
 * report says so instead of drawing.
 */
import { type SectionQuery, timestampSql } from './market-sections.js';
import type { ReportWindow } from './report-window.js';

const dayFrom = (window: ReportWindow) => `CAST(${timestampSql(window.fromMs)} AS DATE)`;

/**
 * The collector's own account: the one its latest account load was collected for. A warehouse of
 * loads before the account was kept has none, and then matches the rows without one.
 */
const OWN_ACCOUNT = `(SELECT account_id FROM loads WHERE source = 'account' AND account_id IS NOT NULL
  ORDER BY started_at DESC LIMIT 1)`;

/** Daily net flow of money over the window, of the collector's own account. */
export function netFlowQuery(window: ReportWindow): SectionQuery {
  return {
    needs: { fct_account_daily: ['day', 'net_flow_usd', 'account_id'] },
    sql: `SELECT CAST(day AS TIMESTAMP) AS t, CAST(sum(net_flow_usd) AS DECIMAL(18, 2)) AS net_flow_usd
FROM fct_account_daily
WHERE account_id IS NOT DISTINCT FROM ${OWN_ACCOUNT}
  AND day BETWEEN ${dayFrom(window)} AND CAST(${timestampSql(window.toMs)} AS DATE)
GROUP BY ALL
ORDER BY t`,
  };
}

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
