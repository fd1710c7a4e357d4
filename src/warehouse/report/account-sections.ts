/**
 * The SQL behind the account charts of the report. The account side of the pipeline builds the
 * models they read (`fct_account_daily`, `fct_order_outcomes`); until a warehouse has them, the
 * report says so instead of drawing.
 */
import { type SectionQuery, timestampSql } from './market-sections.js';
import type { ReportWindow } from './report-window.js';

const dayFrom = (window: ReportWindow) => `CAST(${timestampSql(window.fromMs)} AS DATE)`;

/** Daily net flow of money over the window, summed over the accounts of the warehouse. */
export function netFlowQuery(window: ReportWindow): SectionQuery {
  return {
    needs: { fct_account_daily: ['day', 'net_flow_usd'] },
    sql: `SELECT CAST(day AS TIMESTAMP) AS t, CAST(sum(net_flow_usd) AS DECIMAL(18, 2)) AS net_flow_usd
FROM fct_account_daily
WHERE day BETWEEN ${dayFrom(window)} AND CAST(${timestampSql(window.toMs)} AS DATE)
GROUP BY ALL
ORDER BY t`,
  };
}

/** Orders per grain of the window by outcome: their status, or `returned: <reason>` for returned ones. */
export function orderOutcomesQuery(window: ReportWindow): SectionQuery {
  return {
    needs: { fct_order_outcomes: ['ordered_at', 'status', 'return_reason'] },
    sql: `SELECT CAST(date_trunc('${window.grain}', ordered_at) AS TIMESTAMP) AS t,
  coalesce('returned: ' || return_reason, status) AS outcome, count(*) AS orders
FROM fct_order_outcomes
WHERE ordered_at BETWEEN ${timestampSql(window.fromMs)} AND ${timestampSql(window.toMs)}
GROUP BY ALL
ORDER BY t, outcome`,
  };
}
