import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/service/sim/random.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { askCollector, spawnCollector, spawnMarket, waitForLine } from '../helpers/cli.js';
import { freePort, holdsWarehouse, stopChild } from '../helpers/crash.js';

const KILLS = 20;
const SERVICE_RESTARTS = 2;
const GAMES = [730, 570, 252490];

let dir: string;
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function startServiceProcess(port: number, db: string): Promise<ChildProcess> {
  const child = spawnMarket([
    'serve',
    '--port',
    String(port),
    '--db',
    db,
    '--listings',
    '1200',
    '--sandbox',
    '--churn-rate',
    '120',
    '--read-limit',
    '1000000',
  ]);
  children.add(child);
  await waitForLine(child, /\/v1$/);
  return child;
}

const stop = (child: ChildProcess, signal: NodeJS.Signals) => stopChild(child, signal, children);

function startCollectorProcess(
  baseUrl: string,
  key: string,
  warehouse: string,
  extra: string[] = [],
): ChildProcess {
  const child = spawnCollector(baseUrl, key, warehouse, extra);
  children.add(child);
  return child;
}

describe('no loss across crashes', () => {
  it(`loses and duplicates nothing through ${KILLS} SIGKILLs of the collector and ${SERVICE_RESTARTS} service restarts`, async () => {
    dir = await mkdtemp(join(tmpdir(), 'market-noloss-'));
    const db = join(dir, 'market.duckdb');
    const warehousePath = join(dir, 'warehouse.duckdb');
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const baseUrl = `${origin}/v1`;
    let service = await startServiceProcess(port, db);
    const created = await fetch(`${origin}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"balance_usd": 50}',
    });
    const { api_key: key } = (await created.json()) as { api_key: string };
    const random = new Random(11);
    let restarts = 0;
    for (let kill = 1; kill <= KILLS; kill++) {
      const collector = startCollectorProcess(baseUrl, key, warehousePath);
      // Kill it while it works: once it holds the warehouse (its control file is there), at a random moment.
      await holdsWarehouse(warehousePath);
      await new Promise((r) => setTimeout(r, 300 + random.next() * 1700));
      await stop(collector, 'SIGKILL');
      await rm(`${warehousePath}.collector.json`, { force: true });
      if (restarts < SERVICE_RESTARTS && kill % 8 === 0) {
        await stop(service, 'SIGTERM');
        service = await startServiceProcess(port, db);
        restarts++;
      }
    }
    // Let a last collector catch up once the market is still. It refreshes no models: a refresh
    // over everything landed competes with the catch-up, and a SIGTERM waits for it to finish.
    const last = startCollectorProcess(baseUrl, key, warehousePath, ['--models-cron', 'off']);
    await holdsWarehouse(warehousePath);
    await fetch(`${origin}/sandbox/simulator`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"paused": true}',
    });
    const pausedAt = Date.now();
    const head = (
      (await (await fetch(`${origin}/sandbox/events?app_id=730&limit=1`)).json()) as { last: string }
    ).last;
    const query = (sql: string) => askCollector(warehousePath, sql);
    const caughtUp = async () => {
      const [stream] = await query(
        "SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id'",
      );
      const sweeps = await query(
        "SELECT source, value FROM collector_state WHERE key = 'last_sweep_started_at'",
      );
      const swept = GAMES.every((g) =>
        sweeps.some((r: any) => r.source === `sweep:${g}` && Number(r.value) > pausedAt),
      );
      return stream?.value === head && swept;
    };
    await expect
      .poll(caughtUp, {
        timeout: 120_000,
        interval: 250,
        message: 'the last collector caught up with the stream and swept every game after the pause',
      })
      .toBe(true);
    await stop(last, 'SIGTERM');
    expect(last.exitCode).toBe(0);

    const warehouse = await Warehouse.open(warehousePath, { readOnly: true });
    try {
      const logged: string[] = [];
      let after = 0;
      for (;;) {
        const page = (await (
          await fetch(`${origin}/sandbox/events?app_id=730&after=${after}&limit=100000`)
        ).json()) as { ids: string[]; next_after: number | null };
        logged.push(...page.ids);
        if (page.next_after === null) break;
        after = page.next_after;
      }
      const landed = new Set(
        (await warehouse.query('SELECT event_id FROM listing_events')).map((r) => String(r.event_id)),
      );
      const [counts] = await warehouse.query(
        'SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM listing_events',
      );
      const firstLanded = logged.findIndex((id) => landed.has(id));
      const lost = logged.slice(firstLanded).filter((id) => !landed.has(id)).length;
      const duplicated = Number(counts?.n) - Number(counts?.d);
      process.stdout.write(
        `no-loss: kills=${KILLS} service_restarts=${restarts} events_logged=${logged.length} events_landed=${landed.size} lost=${lost} duplicated=${duplicated}\n`,
      );
      expect(restarts).toBe(SERVICE_RESTARTS);
      expect(lost).toBe(0);
      expect(duplicated).toBe(0);
      expect(landed.size).toBeGreaterThan(500);
      for (const appId of GAMES) {
        const live = (
          await warehouse.query(
            `SELECT listing_id FROM live_listings WHERE app_id = ${appId} ORDER BY listing_id`,
          )
        ).map((r) => String(r.listing_id));
        const api: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await fetch(
            `${baseUrl}/listings?appId=${appId}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
            { headers: { authorization: `Bearer ${key}` } },
          );
          const page = (await res.json()) as { items: { id: string }[]; next_cursor: string | null };
          api.push(...page.items.map((l) => l.id));
          cursor = page.next_cursor;
        } while (cursor);
        expect(live, `live listings of ${appId}`).toEqual(api.sort());
      }
    } finally {
      await warehouse.close();
      await stop(service, 'SIGTERM');
    }
  }, 400_000);
});
