/**
 * `market lake move` as a real process: on a stopped warehouse (the file opened by the command)
 * and through a running collector (its control endpoint), with `market status` showing the lake.
 * Every relation answers as before; an instant to come is refused and changes nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';
import { startTestCollector, waitForSweeps } from '../helpers/collector.js';
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
    const before = new Date(Date.now() - 1000).toISOString();
    const instant = before.replace('T', ' ').replace('Z', '');
    const expected = await landedBefore(instant);
    expect(expected).toMatch(/listing_observations,[1-9]/);

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
