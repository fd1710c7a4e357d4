/**
 * The account source lands the ledger and every order state exactly across SIGKILLs of the
 * collector: a trading account buys while collectors are killed at random moments, then a last one
 * catches up; every ledger row lands once, every order's current state is there, nothing twice.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/service/sim/random.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector, spawnCollector, spawnMarket, waitForLine } from '../helpers/cli.js';
import { freePort, holdsWarehouse, stopChild } from '../helpers/crash.js';

const KILLS = 8;

let dir: string;
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

const stop = (child: ChildProcess, signal: NodeJS.Signals) => stopChild(child, signal, children);

describe('account source, no loss across crashes', () => {
  it(`lands the ledger and the order states exactly through ${KILLS} SIGKILLs of the collector`, async () => {
    dir = await mkdtemp(join(tmpdir(), 'market-account-noloss-'));
    const db = join(dir, 'market.duckdb');
    const warehousePath = join(dir, 'warehouse.duckdb');
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const baseUrl = `${origin}/v1`;
    const args = ['serve', '--port', String(port), '--db', db, '--listings', '1200', '--sandbox'];
    const service = spawnMarket([...args, '--read-limit', '1000000', '--order-limit', '1000000']);
    children.add(service);
    await waitForLine(service, /\/v1$/);
    const post = async (path: string, body: unknown, method = 'POST', key?: string) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify(body),
      });
      return (await response.json()) as any;
    };
    const { api_key: key, account_id: accountId } = await post('/sandbox/accounts', {
      balance_usd: 5000,
      trading: true,
    });
    await post(`/sandbox/accounts/${accountId}`, { accept_after_seconds: 5 }, 'PATCH');
    const get = async (path: string) =>
      (await (
        await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as any;
    const listings = (await get('/listings?limit=200&sort=price_asc&delivery=instant')).items.filter(
      (l: any) => l.source !== 'external' && l.api_purchasable !== false,
    );
    const random = new Random(5);
    let bought = 0;
    const collectorArgs = ['--games', '730', '--account-seconds', '0.2', '--models-cron', 'off'];
    for (let kill = 1; kill <= KILLS; kill++) {
      const collector = spawnCollector(baseUrl, key, warehousePath, collectorArgs);
      children.add(collector);
      await holdsWarehouse(warehousePath);
      const until = Date.now() + 300 + random.next() * 1500;
      // The trader keeps buying and the clock keeps moving the orders along while the collector works.
      while (Date.now() < until) {
        const listing = listings[bought];
        if (listing) {
          const placed = await post(
            '/v1/orders',
            { listing_ids: [listing.id], custom_id: `t-${bought}` },
            'POST',
            key,
          );
          if (placed.order_id) bought++;
        }
        await post('/sandbox/clock', { advance_seconds: 2 });
      }
      await stop(collector, 'SIGKILL');
      await rm(`${warehousePath}.collector.json`, { force: true });
    }
    await post('/sandbox/clock', { advance_seconds: 60 });

    const everyPage = async (path: string) => {
      const rows: any[] = [];
      for (let cursor: string | null = null; ; ) {
        const page: any = await get(`${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        rows.push(...page.data);
        cursor = page.meta.next_cursor;
        if (cursor === null) return rows;
      }
    };
    const ledger = await everyPage('/transactions');
    const orders = await everyPage('/orders');
    const last = spawnCollector(baseUrl, key, warehousePath, collectorArgs);
    children.add(last);
    await holdsWarehouse(warehousePath);
    const caughtUp = async () => {
      const [row] = await askCollector(
        warehousePath,
        `SELECT (SELECT count(DISTINCT transaction_id) FROM account_transactions) AS t,
                (SELECT count(*) FROM account_states WHERE kind = 'order' AND status IN ('completed', 'cancelled', 'failed')) AS o`,
      );
      return { transactions: Number(row?.t), settled: Number(row?.o) >= orders.length };
    };
    await expect
      .poll(caughtUp, {
        timeout: 60_000,
        interval: 250,
        message: 'the last collector landed the whole ledger',
      })
      .toEqual({ transactions: ledger.length, settled: true });
    await stop(last, 'SIGTERM');
    expect(last.exitCode).toBe(0);

    const warehouse = await Warehouse.open(warehousePath, { readOnly: true });
    try {
      const landed = await warehouse.query(
        'SELECT transaction_id, CAST(balance_after_usd AS DOUBLE) AS b FROM account_transactions',
      );
      const states = await warehouse.query(
        `SELECT object_id, status, strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS u FROM account_states WHERE kind = 'order'`,
      );
      const [dupes] = await warehouse.query(
        `SELECT (SELECT count(*) - count(DISTINCT transaction_id) FROM account_transactions) AS t,
                (SELECT count(*) - count(DISTINCT (kind, object_id, updated_at)) FROM account_states) AS s`,
      );
      process.stdout.write(
        `account-no-loss: kills=${KILLS} orders=${orders.length} ledger_rows=${ledger.length} landed_rows=${landed.length} order_states=${states.length}\n`,
      );
      expect(orders.length).toBeGreaterThan(5);
      expect(landed.map((r) => String(r.transaction_id)).sort()).toEqual(ledger.map((r) => r.id).sort());
      expect(Number(dupes?.t)).toBe(0);
      expect(Number(dupes?.s)).toBe(0);
      const seen = new Set(states.map((s) => `${s.object_id} ${s.status} ${s.u}`));
      for (const order of orders)
        expect(seen.has(`${order.order_id} ${order.status} ${order.updated_at}`), order.order_id).toBe(true);
      // Every order was landed in its first state too, or in a later one when no collector ran meanwhile.
      expect(new Set(states.map((s) => String(s.object_id)))).toEqual(new Set(orders.map((o) => o.order_id)));
    } finally {
      await warehouse.close();
      await stop(service, 'SIGTERM');
    }
  }, 300_000);
});
