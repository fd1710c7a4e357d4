/**
 * `market lake move` as a real process: on a stopped warehouse (the file opened by the command)
 * and through a running collector (its control endpoint), with `market status` showing the lake;
 * and `market collect --lake-cron` moving the days older than the hot window on its schedule.
 * Every relation answers as before; an instant to come is refused and changes nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { readLakeManifest } from '../../src/warehouse/lake/index.js';
import { askCollector, runMarket, spawnCollector } from '../helpers/cli.js';
import { startTestCollector, waitForSweeps } from '../helpers/collector.js';
import { holdsWarehouse, stopChild } from '../helpers/crash.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { makeTempDir, T0 } from '../warehouse/fixtures.js';
import { landDays, printRelations } from '../warehouse/lake/lake-fixture.js';

describe('market lake move on a stopped warehouse', () => {
  let dir: string;
  let cleanup: () => void;
  let path: string;
  let printed: Record<string, string>;
  beforeAll(async () => {
    ({ dir, cleanup } = makeTempDir());
    path = join(dir, 'w.duckdb');
    const clock = { now: T0 };
    const warehouse = await Warehouse.open(path, { clock: () => clock.now });
    await landDays(warehouse, clock, dir, 2);
    printed = await printRelations(warehouse);
    await warehouse.close();
  }, 180_000);
  afterAll(() => cleanup());

  it('refuses an instant to come (exit 2) or not a time, and moves nothing', async () => {
    const future = await runMarket(['lake', 'move', '--warehouse', path, '--before', '2999-01-01T00:00:00Z']);
    expect(future.code, future.stderr).toBe(2);
    expect(future.stderr).toMatch(/after now/);
    const malformed = await runMarket(['lake', 'move', '--warehouse', path, '--before', 'yesterday']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--before is an ISO 8601 time/);
    expect(existsSync(join(dir, 'lake', 'manifest.json'))).toBe(false);
  });

  it('moves the rows landed before the instant into the lake beside the file', async () => {
    const moved = await runMarket(['lake', 'move', '--warehouse', path, '--before', '2026-11-02T00:00:00Z']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^relation\s+\|\s+files\s+\|\s+rows/m);
    expect(moved.stdout).toMatch(/raw_listing_events\s+\|\s+1\s+\|\s+4\s/);
    expect(moved.stdout).toMatch(/moved \d+ rows landed before 2026-11-02T00:00:00.000Z/);
    expect(existsSync(join(dir, 'lake', 'raw_listing_events', 'date=2026-11-01', 'part-0.parquet'))).toBe(
      true,
    );
    const warehouse = await Warehouse.open(path, { readOnly: true });
    try {
      expect(await printRelations(warehouse)).toEqual(printed);
      expect(await warehouse.lakeStatus()).toMatchObject({ days: 1, before: '2026-11-02T00:00:00.000Z' });
    } finally {
      await warehouse.close();
    }
    const again = await runMarket(['lake', 'move', '--warehouse', path, '--before', '2026-11-02T00:00:00Z']);
    expect(again.stdout).toMatch(/no row landed before 2026-11-02T00:00:00.000Z is left/);
  }, 120_000);
});

describe('market lake move through a running collector', () => {
  let t: TestService;
  let collector: RunningCollector | null = null;
  let warehouse: string;
  beforeAll(async () => {
    t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000, snapshot: 1000 } });
    const { key } = await t.account({ balance_usd: 50 });
    warehouse = join(t.dir, 'warehouse.duckdb');
    collector = await startTestCollector(t, key);
  }, 120_000);
  afterAll(async () => {
    await collector?.stop();
    await t.close();
  });

  /** Rows and a checksum of what landed before `before` in the relations the collector fills. */
  async function landedBefore(before: string): Promise<string> {
    const relations = [
      'listing_events',
      'listing_observations',
      'price_snapshots',
      'fx_rates',
      'minask_prices',
    ];
    const sql = relations
      .map(
        (r) =>
          `SELECT '${r}' AS relation, count(*) AS n, sum(hash(t)::HUGEINT) AS h FROM ${r} t WHERE ingested_at < TIMESTAMP '${before}'`,
      )
      .join(' UNION ALL ');
    const answer = await runMarket([
      'sql',
      `${sql} ORDER BY relation`,
      '--format',
      'csv',
      '--warehouse',
      warehouse,
    ]);
    expect(answer.code, answer.stderr).toBe(0);
    return answer.stdout;
  }

  it('moves through the daemon, which goes on landing, and market status shows the lake', async () => {
    if (!collector) throw new Error('no collector');
    await waitForSweeps(collector, [730], 0);
    // The instant is a second back, so no write still in flight lands before it; the collector may
    // have landed its first sweep within that second, so the instant moves on until it has rows.
    let before = '';
    let instant = '';
    let expected = '';
    await expect
      .poll(
        async () => {
          before = new Date(Date.now() - 1000).toISOString();
          instant = before.replace('T', ' ').replace('Z', '');
          expected = await landedBefore(instant);
          return expected;
        },
        { timeout: 20_000 },
      )
      .toMatch(/listing_observations,[1-9]/);

    const elsewhere = await runMarket([
      'lake',
      'move',
      '--warehouse',
      warehouse,
      '--before',
      before,
      '--lake',
      t.dir,
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/moves into its own lake/);
    const moved = await runMarket(['lake', 'move', '--warehouse', warehouse, '--before', before]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/raw_listing_observations\s+\|\s+1\s+\|\s+\d+/);
    expect(await landedBefore(instant)).toEqual(expected);
    expect(existsSync(join(t.dir, 'lake', 'manifest.json'))).toBe(true);

    const status = await runMarket(['status', '--warehouse', warehouse]);
    expect(status.stdout).toMatch(/^lake days=1 files=\d+ bytes=\d+ before=/m);
    const json = JSON.parse((await runMarket(['status', '--json', '--warehouse', warehouse])).stdout);
    expect(json.lake).toMatchObject({ days: 1, before });
  }, 120_000);
});

describe('market collect --lake-cron', () => {
  let t: TestService;
  let dir: string;
  let cleanup: () => void;
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    ({ dir, cleanup } = makeTempDir());
    t = await startTestService({ listings: 100, rateLimits: { read: 1_000_000, snapshot: 1000 } });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await t.close();
    cleanup();
  });

  it('moves on its schedule the days older than --hot-days while the daemon lands on', async () => {
    // Two days landed long before today, as a collector running since then would have.
    const path = join(dir, 'w.duckdb');
    const clock = { now: T0 };
    const old = await Warehouse.open(path, { clock: () => clock.now });
    await landDays(old, clock, dir, 2);
    const [landed] = await old.query('SELECT count(*) AS n FROM raw_listing_events');
    await old.close();

    const { key } = await t.account({ balance_usd: 10 });
    const collector = spawnCollector(t.origin, key, path, [
      '--lake-cron',
      '*/2 * * * * *',
      '--hot-days',
      '7',
    ]);
    children.add(collector);
    await holdsWarehouse(path);
    // Asked in-process (no rows until the first move made the table) until both days are in the
    // lake; then `market status` once, to see it say so.
    const lakeDays = async () =>
      Number((await askCollector(path, 'SELECT count(DISTINCT day) AS n FROM lake_files'))[0]?.n ?? 0);
    await expect.poll(lakeDays, { timeout: 60_000, interval: 250 }).toBe(2);
    const status = await runMarket(['status', '--warehouse', path]);
    expect(status.stdout).toMatch(/lake days=2 files=[1-9]\d* bytes=[1-9]/);
    const [moved] = await askCollector(
      path,
      `SELECT count(*) AS n FROM raw_listing_events WHERE ingested_at < TIMESTAMP '2026-11-03'`,
    );
    expect(Number(moved?.n)).toBe(Number(landed?.n));
    await stopChild(collector, 'SIGTERM', children);
    const manifest = await readLakeManifest(join(dir, 'lake'));
    expect((manifest.relations.raw_listing_events ?? []).map((f) => f.date)).toEqual([
      '2026-11-01',
      '2026-11-02',
    ]);
  }, 120_000);
});
