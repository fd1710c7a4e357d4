/**
 * Reports of empty and young warehouses say what is missing, chart by chart, in a page that still
 * parses; the account charts appear once the account models exist.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildReport, Warehouse } from '../../../src/warehouse/index.js';
import { externalReferences, readReportPage } from '../../helpers/report-html.js';
import { makeTempDir, newEvent, T0 } from '../fixtures.js';

let dir: string;
let cleanup: () => void;
let warehouse: Warehouse;
const clock = { now: T0 };

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  clock.now = T0;
  warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'), { clock: () => clock.now });
});
afterEach(async () => {
  await warehouse.close();
  cleanup();
});

describe('the report of an empty or young warehouse', () => {
  it('says nothing has landed and which models are not built, in a page that parses', async () => {
    const summary = await buildReport(warehouse, { out: join(dir, 'reports') });
    const page = readReportPage(summary.html);
    expect(page.errors).toEqual([]);
    expect(externalReferences(page)).toEqual([]);
    expect(page.html).toContain('Nothing has landed in this warehouse yet');
    expect(page.specs.size).toBe(0);
    expect(summary.svgs).toEqual([]);
    expect(summary.missing.map((m) => m.chart)).toEqual([
      'minask',
      'float',
      'stickers',
      'fx',
      'net-flow',
      'order-outcomes',
    ]);
    expect(summary.missing[0]?.reason).toMatch(
      /the models fct_minask_daily, fct_listing_lifecycle are not in this warehouse: the collector builds the models every minute \(or run `market models run`\)/,
    );
    expect(readdirSync(join(dir, 'reports')).sort()).toEqual(
      [summary.html.split('/').at(-2), 'latest.html'].sort(),
    );
  });

  it('says which charts have no rows yet once a few listings landed and the models are built', async () => {
    clock.now = T0 + 60_000;
    await warehouse.write([
      { source: 'stream', events: [newEvent('e-1', 'l-1', T0), newEvent('e-2', 'l-2', T0)] },
    ]);
    await warehouse.refreshModels();
    const summary = await buildReport(warehouse, { out: join(dir, 'reports'), window: '1h' });
    const page = readReportPage(summary.html);
    expect(page.errors).toEqual([]);
    // The two listings have floats: the float chart draws; nothing priced them yet.
    expect([...page.specs.keys()]).toEqual(['float']);
    const reasons = Object.fromEntries(summary.missing.map((m) => [m.chart, m.reason]));
    expect(reasons.minask).toMatch(/^no price list priced an item in the window yet/);
    expect(reasons.stickers).toMatch(/^no sticker has a premium yet/);
    expect(reasons.fx).toMatch(/^no FX rate in force/);
    expect(page.html).toMatch(/<td>stream<\/td><td>2026-11-01 00:01:00<\/td><td class="n">2<\/td>/);
  });

  it('fits a window longer than the data to the data, per minute, and says so', async () => {
    clock.now = T0 + 60_000;
    await warehouse.write([{ source: 'stream', events: [newEvent('e-1', 'l-1', T0)] }]);
    clock.now = T0 + 45 * 60_000;
    await warehouse.refreshModels();
    const summary = await buildReport(warehouse, { out: join(dir, 'reports'), window: '7d' });
    const page = readReportPage(summary.html);
    expect(page.errors).toEqual([]);
    expect(page.html).toContain(
      'Window: 2026-11-01 00:01 to 2026-11-01 00:45 UTC, per minute: the last 7d was asked for, and the warehouse has data only since 2026-11-01 00:01 UTC, so the report is fitted to that.',
    );
  });

  it('draws the account charts of the collector’s own account from fct_account_daily and fct_order_outcomes', async () => {
    clock.now = T0 + 3 * 86_400_000;
    await warehouse.withConnection(async (c) => {
      // A 100 USD opening deposit on acc_1's first day; its trading moved -89.50 that day. The
      // collector's latest account load names its own account: acc_1 (acc_2 was collected before;
      // both long before the window, which the first load would otherwise shorten).
      await c.run(`INSERT INTO loads (load_id, source, started_at, rows, account_id) VALUES
        ('l1', 'account', TIMESTAMP '2026-10-01 09:00:00', 1, 'acc_2'),
        ('l2', 'account', TIMESTAMP '2026-10-02 09:00:00', 1, 'acc_1')`);
      await c.run(`CREATE TABLE fct_account_daily AS SELECT * FROM (VALUES
        ('acc_1', DATE '2026-11-01', 10.50, 100.00), ('acc_2', DATE '2026-11-01', -2.25, 0.00),
        ('acc_1', DATE '2026-11-02', -4.00, 0.00))
        t(account_id, day, net_flow_usd, other_usd)`);
      await c.run(`CREATE TABLE fct_order_outcomes AS SELECT * FROM (VALUES
        ('o1', 'acc_1', TIMESTAMP '2026-11-01 10:00:00', 'completed', NULL),
        ('o2', 'acc_1', TIMESTAMP '2026-11-01 11:00:00', 'failed', 'trade_timeout'),
        ('o3', 'acc_1', TIMESTAMP '2026-11-02 09:00:00', 'completed', NULL),
        ('o4', 'acc_2', TIMESTAMP '2026-11-02 09:00:00', 'failed', 'declined'))
        t(order_id, account_id, ordered_at, status, return_reason)`);
    });
    const summary = await buildReport(warehouse, { out: join(dir, 'reports'), window: '7d' });
    const page = readReportPage(summary.html);
    expect(page.errors).toEqual([]);
    expect(page.specs.get('net-flow')?.data.values).toEqual([
      { t: '2026-11-01T00:00:00.000Z', flow: 'trading', amount_usd: -89.5 },
      { t: '2026-11-01T00:00:00.000Z', flow: 'deposits and withdrawals', amount_usd: 100 },
      { t: '2026-11-02T00:00:00.000Z', flow: 'trading', amount_usd: -4 },
      { t: '2026-11-02T00:00:00.000Z', flow: 'deposits and withdrawals', amount_usd: 0 },
    ]);
    expect(page.specs.get('order-outcomes')?.data.values).toEqual([
      { t: '2026-11-01T00:00:00.000Z', outcome: 'completed', orders: 1 },
      { t: '2026-11-01T00:00:00.000Z', outcome: 'returned: trade_timeout', orders: 1 },
      { t: '2026-11-02T00:00:00.000Z', outcome: 'completed', orders: 1 },
    ]);
    expect(page.html).toMatch(
      /<td>2026-11-01<\/td><td>deposits and withdrawals<\/td><td class="n">100\.00<\/td>/,
    );
    // One colour per outcome, fixed, over the outcomes present.
    expect((page.specs.get('order-outcomes') as any)?.encoding.color.scale).toEqual({
      domain: ['completed', 'returned: trade_timeout'],
      range: ['#54a24b', '#b279a2'],
    });
    expect(summary.svgs.map((p) => p.split('/').at(-1))).toEqual(['net-flow.svg', 'order-outcomes.svg']);
  });

  it('says which column an account model lacks', async () => {
    await warehouse.withConnection((c) =>
      c.run('CREATE TABLE fct_account_daily (day DATE, balance_usd DECIMAL(18, 2))'),
    );
    const summary = await buildReport(warehouse, { out: join(dir, 'reports') });
    expect(summary.missing.find((m) => m.chart === 'net-flow')?.reason).toBe(
      'the model fct_account_daily has no column net_flow_usd, other_usd, account_id',
    );
  });

  it('refuses a window that is not minutes, hours or days', async () => {
    await expect(buildReport(warehouse, { out: join(dir, 'reports'), window: '7w' })).rejects.toThrow(
      /the window "7w" is not a number of minutes, hours or days/,
    );
  });
});
