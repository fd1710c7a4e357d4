/**
 * One account at a time: two keys of two accounts collected in turn into one warehouse stay apart
 * in every account model (each with its own opening deposit and closing balance), every model test
 * passes, and the report's default shows the collector's own (the latest) account alone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { FLOWS, netFlowQuery } from '../../src/warehouse/report/account-sections.js';
import { reportWindow } from '../../src/warehouse/report/report-window.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buy, ledgerOf, listingsFor } from '../helpers/trading.js';

let t: TestService;
let collector: RunningCollector | null = null;

beforeAll(async () => {
  t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
});
afterAll(async () => {
  await collector?.stop();
  await t?.close();
});

/** Buys one Dota 2 listing with `key`, then collects its account until the ledger and the order landed. */
async function collectAccount(key: string, accountId: string): Promise<void> {
  const [listing] = await listingsFor(t, key, { appId: 570, delivery: 'instant' });
  const placed = await buy(t, key, { listing_ids: [listing?.id], appId: 570 });
  expect(placed.status, placed.text).toBe(201);
  collector = await startTestCollector(t, key, { sources: { games: [570], accountIntervalMs: 300 } });
  const active = collector;
  const ledger = await ledgerOf(t, key);
  const landed = async (table: string) => {
    const [row] = await active.warehouse.query(
      `SELECT count(*) AS n FROM ${table} JOIN loads USING (load_id) WHERE account_id = '${accountId}'`,
    );
    return Number(row?.n);
  };
  await vi.waitFor(
    async () => {
      expect(await landed('account_transactions')).toBe(ledger.length);
      expect(await landed('account_states')).toBeGreaterThan(0);
    },
    { timeout: 30_000, interval: 200 },
  );
  await active.stop();
  collector = null;
}

/** GET /balance of the key's account, in USD. */
async function balanceOf(key: string): Promise<number> {
  return Number((await t.call('/balance', { key })).body.balance_usd);
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
    // Each account closes at its own balance, from its own opening deposit.
    const daily = await warehouse.query(
      `SELECT account_id, sum(net_flow_usd)::DOUBLE AS net, arg_max(closing_balance_usd, day)::DOUBLE AS closing,
         arg_min(opening_balance_usd, day)::DOUBLE AS opening
       FROM fct_account_daily GROUP BY account_id ORDER BY account_id`,
    );
    const firstBalance = await balanceOf(first.key);
    const secondBalance = await balanceOf(second.key);
    expect(daily).toEqual(
      [
        { account_id: first.accountId, net: firstBalance, closing: firstBalance, opening: 0 },
        { account_id: second.accountId, net: secondBalance, closing: secondBalance, opening: 0 },
      ].sort((a, b) => a.account_id.localeCompare(b.account_id)),
    );
    // One order each, under its own account.
    const orders = await warehouse.query(
      'SELECT account_id, count(*)::INTEGER AS n FROM fct_order_outcomes GROUP BY account_id ORDER BY account_id',
    );
    expect(orders).toEqual(
      [first.accountId, second.accountId].sort().map((account_id) => ({ account_id, n: 1 })),
    );
    const window = reportWindow('1d', Date.now() + 60_000);
    const flow = await warehouse.query(netFlowQuery(window).sql);
    // The report's flows are the second account's alone: its trading and its opening deposit.
    const amountOf = (name: string) => Number(flow.find((r) => r.flow === name)?.amount_usd);
    expect(amountOf(FLOWS.trading) + amountOf(FLOWS.deposits)).toBeCloseTo(secondBalance, 2);
    expect(amountOf(FLOWS.trading)).toBeLessThan(0);
  });
});
