/**
 * One account at a time: two keys of two accounts collected in turn into one warehouse stay apart
 * in every account model (each with its own opening deposit and closing balance), every model test
 * passes, and the report's default shows the collector's own (the latest) account alone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { netFlowQuery } from '../../src/warehouse/report/account-sections.js';
import { reportWindow } from '../../src/warehouse/report/report-window.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let collector: RunningCollector | null = null;

beforeAll(async () => {
  t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
});

/** Collects `key`'s account until its ledger rows (the opening deposit) landed, then stops. */
async function collectAccount(key: string, accountId: string): Promise<void> {
  collector = await startTestCollector(t, key, { sources: { games: [570], accountIntervalMs: 300 } });
  const active = collector;
  await vi.waitFor(
    async () => {
      const [row] = await active.warehouse.query(
        `SELECT count(*) AS n FROM account_transactions JOIN loads USING (load_id) WHERE account_id = '${accountId}'`,
      );
      expect(Number(row?.n)).toBeGreaterThan(0);
    },
    { timeout: 30_000, interval: 200 },
  );
  await active.stop();
  collector = null;
}

describe('two accounts in one warehouse', () => {
  it('stay apart in every account model, and the report shows the latest', async () => {
    const first = await t.account({ balance_usd: 500, trading: true });
    const second = await t.account({ balance_usd: 300, trading: true });
    await collectAccount(first.key, first.accountId);
    await collectAccount(second.key, second.accountId);

    collector = await startTestCollector(t, second.key, { sources: { games: [570], account: false } });
    const { warehouse } = collector;
    await warehouse.refreshModels();
    const accountModels = ['fct_account_daily', 'fct_order_outcomes', 'fct_p2p_sales'];
    const results = await warehouse.testModels({ select: accountModels });
    expect(new Set(results.map((r) => r.model))).toEqual(new Set(accountModels));
    const failed = results.filter((r) => r.failures > 0 && !r.warn);
    expect(failed).toEqual([]);
    const daily = await warehouse.query(
      `SELECT account_id, sum(net_flow_usd)::DOUBLE AS net, max(closing_balance_usd)::DOUBLE AS closing,
         min(opening_balance_usd)::DOUBLE AS opening
       FROM fct_account_daily GROUP BY account_id ORDER BY account_id`,
    );
    expect(daily).toEqual(
      [
        { account_id: first.accountId, net: 500, closing: 500, opening: 0 },
        { account_id: second.accountId, net: 300, closing: 300, opening: 0 },
      ].sort((a, b) => a.account_id.localeCompare(b.account_id)),
    );
    const window = reportWindow('1d', Date.now() + 60_000);
    const flow = await warehouse.query(netFlowQuery(window).sql);
    expect(flow.map((r) => Number(r.net_flow_usd))).toEqual([300]);
  });
});
