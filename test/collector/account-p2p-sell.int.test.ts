/**
 * The demo trader's P2P and Instant Sell activity through a real collector: the trader of
 * `market run` trades on a sandbox service whose clock moves only when the test moves it (so every
 * state lasts until the collector has landed it), a demo buyer buys its P2P listings, and the
 * platform's 8-day trade protection ends with one clock jump (a sold listing then leaves the API; its
 * sale row names it). Every state each listing and sell
 * order was seen in lands once; fct_p2p_sales pays what the service paid and knows what the copy
 * cost; fct_account_daily closes at GET /balance; the account source counts only new rows as landed.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDemoTrader, type DemoTrader } from '../../src/cli/demo-trader.js';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { createClock } from '../../src/service/core/clock.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { startTestCollector } from '../helpers/collector.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, cents, closingAndBalance, everyRowOf, ledgerOf } from '../helpers/trading.js';

const DAY_S = 86_400;

/**
 * The models built and tested here. The market models compare the service's clock with the
 * collector's, and this service's clock runs 9 days behind: account-models.int.test.ts tests them all
 * on a service on the real clock.
 */
const ACCOUNT_MODELS = ['fct_account_daily', 'fct_order_outcomes', 'fct_p2p_sales'];

describe('P2P and Instant Sell activity of the demo trader, landed and modelled', () => {
  let t: TestService;
  let collector: RunningCollector;
  let trader: DemoTrader;
  let accountId: string;
  let key: string;
  /** Every state seen through the API: `kind id status epoch-ms`. */
  const seen = new Set<string>();
  /** The listing each copy of the demo account was bought from, by asset id. */
  const boughtFrom = new Map<string, string>();
  /** The last state of each P2P listing the API answered, by id: a sold listing is answered no more. */
  const lastListing = new Map<string, Record<string, any>>();

  /** The landed states of P2P listings and sell orders, as `kind id status epoch-ms`. */
  async function landedStates(): Promise<string[]> {
    const rows = await collector.warehouse.query(
      `SELECT kind || ' ' || object_id || ' ' || status || ' ' || epoch_ms(updated_at) AS s
       FROM account_states WHERE kind IN ('p2p_listing', 'sell_order')`,
    );
    return rows.map((r) => String(r.s));
  }

  /** Reads the account's listings and sell orders (and the copies at home), then waits until every state seen has landed. */
  async function observe(): Promise<void> {
    for (const l of await everyRowOf(t, key, '/p2p/listings')) {
      seen.add(`p2p_listing ${l.id} ${l.status} ${Date.parse(l.updated_at)}`);
      lastListing.set(l.id, l);
    }
    for (const o of await everyRowOf(t, key, '/sell/orders'))
      seen.add(`sell_order ${o.id} ${o.status} ${Date.parse(o.updated_at)}`);
    for (const copy of (await t.sandbox(`/accounts/${accountId}/inventory`)).body.data)
      boughtFrom.set(copy.asset_id, copy.listing_id);
    // Also run from beforeAll: vi.waitFor, since expect.poll runs only inside a test.
    await vi.waitFor(
      async () => {
        const landed = new Set(await landedStates());
        expect(
          [...seen].filter((s) => !landed.has(s)),
          'P2P listing and sell order states not landed',
        ).toEqual([]);
      },
      { timeout: 10_000 },
    );
  }

  /** A trader turn, the states it made landed, then `seconds` of service clock and the states that made landed. */
  async function turnThenAdvance(seconds: number): Promise<void> {
    await trader.turn();
    await observe();
    await advance(t, seconds);
    await observe();
  }

  beforeAll(async () => {
    // The service clock starts 9 days back and moves only with the sandbox: the 8-day jump below
    // never takes it past the collector's own clock.
    const frozenAt = Date.now();
    const clock = createClock({ start: frozenAt - 9 * DAY_S * 1000, realNow: () => frozenAt });
    t = await startTestService({ listings: 1500, clock, rateLimits: { read: 100_000, orders: 100_000 } });
    ({ accountId, key } = await t.account({ balance_usd: 500, trading: true }));
    const traderKey = await t.sandbox(`/accounts/${accountId}/keys`, { label: 'demo trader', trading: true });
    collector = await startTestCollector(t, key, { sources: { games: [730], accountIntervalMs: 100 } });
    trader = createDemoTrader({
      baseUrl: t.baseUrl,
      accountId,
      apiKey: traderKey.body.api_key,
      log: pino({ level: 'silent' }),
    });
    await trader.setUp();
    // Turns 31 s apart: each bought copy arrives (accepted after 30 s), the trader lists the first on
    // P2P, sells the second to the bots (or the next one they buy) and keeps the third; the buyer buys
    // the listing at the next turn, the seller sends a minute later, the buyer accepts 30 s after that.
    const reached = (kind: string, status: string) =>
      [...seen].some((s) => s.startsWith(`${kind} `) && s.split(' ')[2] === status);
    for (
      let turn = 1;
      !(reached('p2p_listing', 'verification_hold') && reached('sell_order', 'received'));
      turn++
    )
      if (turn > 16)
        throw new Error(
          '16 turns of the demo trader took no P2P listing to verification_hold or no sell order to received',
        );
      else await turnThenAdvance(31);
    // The platform's trade protection ends: listings sold, sales settled.
    await advance(t, 8 * DAY_S + 120);
    await observe();
    const ledger = await ledgerOf(t, key);
    await vi.waitFor(
      async () => {
        const [row] = await collector.warehouse.query('SELECT count(*) AS n FROM account_transactions');
        expect(Number(row?.n), 'ledger rows landed').toBe(ledger.length);
      },
      { timeout: 10_000 },
    );
    await collector.warehouse.refreshModels({ select: ACCOUNT_MODELS });
  }, 50_000);
  afterAll(async () => {
    await trader?.close();
    await collector?.stop();
    await t?.close();
  });

  it('lands every state each P2P listing and sell order was seen in, once, in the order they went', async () => {
    const landed = await landedStates();
    expect(new Set(landed).size).toBe(landed.length);
    expect(new Set(landed)).toEqual(seen);
    const paths = new Map<string, string[]>();
    const rows = await collector.warehouse.query(
      `SELECT kind, object_id, string_agg(status, ' > ' ORDER BY updated_at) AS path
       FROM account_states WHERE kind IN ('p2p_listing', 'sell_order') GROUP BY ALL`,
    );
    for (const r of rows) paths.set(String(r.kind), [...(paths.get(String(r.kind)) ?? []), String(r.path)]);
    expect(paths.get('p2p_listing')).toContain('active > trade_pending > trade_sent > verification_hold');
    const statuses = await collector.warehouse.query(
      `SELECT DISTINCT status FROM account_states WHERE kind = 'p2p_listing' ORDER BY status`,
    );
    const five = ['active', 'reconciliation_required', 'trade_pending', 'trade_sent', 'verification_hold'];
    for (const r of statuses) expect(five).toContain(r.status);
    expect(paths.get('sell_order')).toContain('pending > offer_sent > received > completed');
    const listings = await everyRowOf(t, key, '/p2p/listings');
    const sells = await everyRowOf(t, key, '/sell/orders');
    const [bodies] = await collector.warehouse.query(
      `SELECT count(*) FILTER (WHERE kind = 'p2p_listing') AS p, count(*) FILTER (WHERE kind = 'sell_order') AS s
       FROM account_states WHERE json_extract_string(body, '$.id') = object_id`,
    );
    expect(Number(bodies?.p)).toBe([...seen].filter((s) => s.startsWith('p2p_listing')).length);
    expect(Number(bodies?.s)).toBe([...seen].filter((s) => s.startsWith('sell_order')).length);
    process.stdout.write(
      `account-p2p-sell: p2p_listings=${listings.length} sell_orders=${sells.length} states=${landed.length}\n`,
    );
  });

  it("gives each P2P sale the service's payout and the price its order paid", async () => {
    // A sold listing has left GET /p2p/listings: its sale row names it, its last state has the price.
    const sales = (await ledgerOf(t, key)).filter((r) => r.type === 'sale' && r.order_id?.startsWith('p2p'));
    const sold = sales.map((r) => lastListing.get(r.order_id) as Record<string, any>);
    expect(sold.length).toBeGreaterThan(0);
    expect(sold.every((l) => l?.status === 'verification_hold')).toBe(true);
    const answered = new Set((await everyRowOf(t, key, '/p2p/listings')).map((l) => l.id));
    expect(sold.filter((l) => answered.has(l.id))).toEqual([]);
    const paid = new Map<string, number>();
    for (const order of await everyRowOf(t, key, '/orders'))
      for (const item of order.items)
        if (order.status === 'completed') paid.set(item.listing_id, item.price_usd);
    const rows = await collector.warehouse.query(
      `SELECT listing_id, CAST(listed_price_usd AS DOUBLE) AS listed, CAST(payout_usd AS DOUBLE) AS payout,
              CAST(bought_price_usd AS DOUBLE) AS bought, CAST(realized_margin_usd AS DOUBLE) AS margin
       FROM fct_p2p_sales`,
    );
    expect(rows.map((r) => r.listing_id).sort()).toEqual(sold.map((l) => l.id).sort());
    for (const listing of sold) {
      const row = rows.find((r) => r.listing_id === listing.id);
      const bought = paid.get(boughtFrom.get(listing.asset_id) ?? '');
      expect(bought, `the order that bought ${listing.asset_id}`).toBeDefined();
      expect(cents(Number(row?.payout))).toBe(cents(listing.seller_payout_usd));
      expect(cents(Number(row?.listed))).toBe(cents(listing.price_usd));
      expect(cents(Number(row?.bought))).toBe(cents(bought as number));
      expect(cents(Number(row?.margin))).toBe(cents(listing.seller_payout_usd) - cents(bought as number));
    }
    expect(sales.map((r) => cents(r.amount_usd)).sort()).toEqual(
      sold.map((l) => cents(l.seller_payout_usd)).sort(),
    );
  });

  it("closes the last day at the service's GET /balance, to the cent, sales included, and passes the account models' tests", async () => {
    const { closing, balance } = await closingAndBalance(t, key, collector.warehouse);
    expect(closing).toBe(balance);
    const [sales] = await collector.warehouse.query(
      'SELECT CAST(sum(sales_usd) AS DOUBLE) AS s FROM fct_account_daily',
    );
    const ledgerSales = (await ledgerOf(t, key)).filter((r) => r.type === 'sale');
    expect(ledgerSales.length).toBeGreaterThan(1);
    expect(cents(Number(sales?.s))).toBe(ledgerSales.reduce((sum, r) => sum + cents(r.amount_usd), 0));
    const results = await collector.warehouse.testModels({ select: ACCOUNT_MODELS });
    expect(new Set(results.map((r) => r.model))).toEqual(new Set(ACCOUNT_MODELS));
    const failed = results.filter((r) => r.failures > 0 || r.error);
    expect(failed).toEqual([]);
  });

  // Last: it stops the collector.
  it('counts as landed only the rows that were new, not the overlap it re-reads', async () => {
    const account = () => {
      const status = collector.status().find((s) => s.name === 'account');
      if (!status) throw new Error('no account source');
      return status;
    };
    // Nothing changes on the frozen clock: once the due work of the last jump has landed, every run
    // only re-reads the overlap. Wait for a few re-reads in a row that landed nothing.
    let since = account();
    await expect
      .poll(
        () => {
          const now = account();
          if (now.landed !== since.landed) since = now;
          return now.received - since.received;
        },
        {
          timeout: 20_000,
          message: 'the account source to re-read its overlap a few times, landing nothing',
        },
      )
      .toBeGreaterThanOrEqual(5);
    // The board and the tables are compared once the collector has stopped: while it runs, a run
    // may commit between the two reads (a busy machine made them differ by one).
    await collector.stop();
    const { landed } = account();
    const warehouse = await Warehouse.open(collector.warehouse.path, { readOnly: true });
    try {
      const [row] = await warehouse.query(
        'SELECT (SELECT count(*) FROM account_transactions) + (SELECT count(*) FROM account_states) AS n',
      );
      expect(landed).toBe(Number(row?.n));
    } finally {
      await warehouse.close();
    }
  });
});
