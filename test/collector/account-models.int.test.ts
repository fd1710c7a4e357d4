/**
 * The account models built from what a real collector landed while an account traded on the
 * sandbox service: every model test passes, and fct_account_daily's closing balance is GET /balance.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy, closingAndBalance, ledgerOf, listingsFor } from '../helpers/trading.js';

describe('account models over a real collector run', () => {
  let t: TestService;
  let collector: RunningCollector;
  let key: string;
  const orderIds: string[] = [];
  let declined = '';

  /** Waits until the collector has landed `count` orders in some state (so the first one is seen). */
  async function landedStates(count: number) {
    const landed = async () => {
      const [row] = await collector.warehouse.query(
        "SELECT count(DISTINCT object_id) AS n FROM account_states WHERE kind = 'order'",
      );
      return Number(row?.n);
    };
    await vi.waitFor(
      async () =>
        expect(await landed(), `the collector to land ${count} orders`).toBeGreaterThanOrEqual(count),
      { timeout: 30_000, interval: 100 },
    );
  }

  beforeAll(async () => {
    t = await startTestService({ listings: 1500, rateLimits: { read: 100_000, orders: 100_000 } });
    const account = await t.account({ balance_usd: 500, trading: true });
    key = account.key;
    await t.sandbox(`/accounts/${account.accountId}`, { accept_after_seconds: 60 }, 'PATCH');
    collector = await startTestCollector(t, key, { sources: { games: [730], accountIntervalMs: 300 } });
    // Let the minAsk lists land first, so purchases have a market price to compare with.
    const minaskRows = async () =>
      Number((await collector.warehouse.query('SELECT count(*) AS n FROM minask_prices'))[0]?.n);
    await vi.waitFor(async () => expect(await minaskRows()).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 100,
    });
    for (const listing of await listingsFor(t, key, { delivery: 'instant', count: 3 })) {
      const placed = await buy(t, key, { listing_ids: [listing.id] });
      expect(placed.status).toBe(201);
      orderIds.push(placed.body.order_id);
    }
    await landedStates(orderIds.length);
    await advance(t, 65);
    await t.sandbox(
      `/accounts/${account.accountId}`,
      { offers: 'decline', accept_after_seconds: 60 },
      'PATCH',
    );
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    declined = placed.body.order_id;
    orderIds.push(declined);
    await landedStates(orderIds.length);
    await advance(t, 65);
    const ledger = await ledgerOf(t, key);
    const landed = async () => {
      const [row] = await collector.warehouse.query(
        `SELECT (SELECT count(*) FROM account_transactions) AS t,
                (SELECT count(DISTINCT object_id) FROM account_states WHERE status IN ('completed', 'cancelled')) AS o`,
      );
      return { transactions: Number(row?.t), settledOrders: Number(row?.o) };
    };
    await vi.waitFor(
      async () =>
        expect(await landed()).toEqual({ transactions: ledger.length, settledOrders: orderIds.length }),
      { timeout: 60_000, interval: 100 },
    );
    await collector.warehouse.refreshModels();
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
    await t?.close();
  });

  it('passes every model test', async () => {
    const results = await collector.warehouse.testModels();
    const account = results.filter((r) => /^fct_(account_daily|order_outcomes|p2p_sales)$/.test(r.model));
    expect(account.length).toBeGreaterThanOrEqual(12);
    expect(results.filter((r) => r.failures > 0 || r.error)).toEqual([]);
  });

  it("closes the last day at the service's GET /balance, to the cent", async () => {
    const { closing, balance } = await closingAndBalance(t, key, collector.warehouse);
    expect(closing).toBe(balance);
    const [sum] = await collector.warehouse.query(
      'SELECT CAST(sum(transactions) AS INTEGER) AS n FROM fct_account_daily',
    );
    expect(sum?.n).toBe((await ledgerOf(t, key)).length);
  });

  it('tells each order its path, the declined one its return reason and refund, and the slippage', async () => {
    const rows = await collector.warehouse.query(
      `SELECT order_id, status, status_path, return_reason, CAST(refund_usd AS DOUBLE) AS refund,
              seconds_to_completion, min_ask_at_purchase_usd, slippage_usd
       FROM fct_order_outcomes ORDER BY ordered_at`,
    );
    expect(rows.map((r) => r.order_id).sort()).toEqual([...orderIds].sort());
    const byId = new Map(rows.map((r) => [String(r.order_id), r]));
    expect(byId.get(declined)).toMatchObject({ status: 'cancelled', return_reason: 'declined' });
    expect(Number(byId.get(declined)?.refund)).toBeGreaterThan(0);
    for (const id of orderIds.filter((o) => o !== declined)) {
      expect(byId.get(id)).toMatchObject({ status: 'completed', return_reason: null });
      expect(String(byId.get(id)?.status_path)).toMatch(/^delivering > completed$/);
      expect(Number(byId.get(id)?.seconds_to_completion)).toBeGreaterThan(0);
    }
    expect(rows.some((r) => r.min_ask_at_purchase_usd !== null && r.slippage_usd !== null)).toBe(true);
  });
});
