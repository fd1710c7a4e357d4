/**
 * `market sql` and `market models` as real processes: while the collector daemon writes the
 * warehouse (through its control endpoint) and after it stopped (on the file itself).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { runMarket } from '../helpers/cli.js';
import { apiLiveIds, startTestCollector, waitForStreamHead, waitForSweeps } from '../helpers/collector.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Rows of a parquet file read back in a DuckDB of its own. */
async function readParquet(path: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    return (await connection.runAndReadAll(`SELECT * FROM read_parquet('${path}') ORDER BY ALL`)).getRowsJS();
  } finally {
    instance.closeSync();
  }
}

describe('market sql and market models', () => {
  let t: TestService;
  let key: string;
  let collector: RunningCollector | null = null;
  let warehouse: string;

  beforeAll(async () => {
    t = await startTestService({ listings: 1200, rateLimits: { read: 1_000_000, snapshot: 1000 } });
    ({ key } = await t.account({ balance_usd: 50 }));
    warehouse = join(t.dir, 'warehouse.duckdb');
    // The daemon refreshes the models every 2 seconds here (every minute by default).
    collector = await startTestCollector(t, key, { work: { modelsCron: '*/2 * * * * *' } });
  });
  afterAll(async () => {
    await collector?.stop();
    await t.close();
  });

  it('answers ad hoc SQL while the daemon writes, and the answers are current', async () => {
    await t.sandbox('/simulator', { paused: false, rate_per_second: 60 });
    // Queries run while events are landing.
    for (let i = 0; i < 2; i++) {
      const during = await runMarket([
        'sql',
        'SELECT count(*) AS n FROM listing_events',
        '--warehouse',
        warehouse,
      ]);
      expect(during.code).toBe(0);
      expect(during.stdout).toMatch(/^n\s*\n-+\n\d+\s*\n\(1 rows\)/);
    }
    await t.sandbox('/simulator', { paused: true });
    if (!collector) throw new Error('no collector');
    await waitForStreamHead(t, collector);
    // The listings older than the collector come from its first sweep: wait until it has landed.
    await waitForSweeps(collector, [730], 0);
    const live = await runMarket([
      'sql',
      'SELECT listing_id FROM live_listings WHERE app_id = 730 ORDER BY listing_id',
      '--format',
      'json',
      '--warehouse',
      warehouse,
    ]);
    expect(live.code).toBe(0);
    const ids = (JSON.parse(live.stdout) as { listing_id: string }[]).map((r) => r.listing_id);
    expect(ids).toEqual(await apiLiveIds(t, key, 730));
  });

  it('sees models the daemon refreshed on its schedule, matching the API', async () => {
    const settled = Date.now();
    const current = collector;
    if (!current) throw new Error('no collector');
    await expect
      .poll(
        async () => {
          const [run] = await current.warehouse.query(
            "SELECT epoch_ms(max(started_at)) AS at FROM model_runs WHERE model = 'fct_float_rank'",
          );
          return Number(run?.at) > settled;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const result = await runMarket([
      'sql',
      'SELECT count(*) AS n FROM fct_float_rank',
      '--format',
      'csv',
      '--warehouse',
      warehouse,
    ]);
    expect(result.code).toBe(0);
    const floats = (await readAllListings(t, key, '&appId=730')).filter((l) => l.float_value !== null);
    expect(result.stdout).toBe(`n\n${floats.length}\n`);
  });

  it('builds and tests models through the daemon, and writes query results to parquet', async () => {
    const run = await runMarket([
      'models',
      'run',
      '--select',
      'fct_float_distribution',
      '--warehouse',
      warehouse,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fct_float_distribution\s*\|\s*table\s*\|\s*full/);
    expect(run.stdout).not.toMatch(/fct_minask_history/);
    const tests = await runMarket(['models', 'test', '--warehouse', warehouse]);
    expect(tests.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(tests.code).toBe(0);

    const out = join(t.dir, 'floats.parquet');
    const query = 'SELECT listing_id, float_rank FROM fct_float_rank';
    const written = await runMarket(['sql', query, '--out', out, '--warehouse', warehouse]);
    expect(written.code).toBe(0);
    const current = collector;
    if (!current) throw new Error('no collector');
    const expected = await current.warehouse.query(`${query} ORDER BY ALL`);
    expect(written.stdout).toBe(`wrote ${expected.length} rows to ${out}\n`);
    expect(
      (await readParquet(out)).map(([id, rank]) => ({ listing_id: id, float_rank: Number(rank) })),
    ).toEqual(expected);
  });

  it('refuses bad input through the daemon with a clear message, changing nothing', async () => {
    const write = await runMarket(['sql', 'DELETE FROM loads', '--warehouse', warehouse]);
    expect(write.code).toBe(2);
    expect(write.stderr).toMatch(/only a single read-only query/);
    const unknown = await runMarket(['models', 'run', '--select', 'fct_nope', '--warehouse', warehouse]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no model is named fct_nope/);
    const csv = await runMarket(['sql', 'SELECT 1', '--out', join(t.dir, 'x.csv'), '--warehouse', warehouse]);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/ending in \.parquet/);
    expect(existsSync(join(t.dir, 'x.csv'))).toBe(false);
  });

  it('works on the file itself once the daemon has stopped', async () => {
    await collector?.stop();
    collector = null;
    const run = await runMarket(['models', 'run', '--warehouse', warehouse]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/int_listing_spells\s*\|\s*incremental\s*\|\s*incremental/);
    const tests = await runMarket([
      'models',
      'test',
      '--select',
      'fct_listing_lifecycle',
      '--warehouse',
      warehouse,
    ]);
    expect(tests.code).toBe(0);
    expect(tests.stdout).toMatch(/PASS\s+fct_listing_lifecycle: unique\(app_id, listing_id\)/);
    const out = join(t.dir, 'lifecycle.parquet');
    const written = await runMarket([
      'sql',
      'SELECT listing_id FROM fct_listing_lifecycle WHERE is_live AND app_id = 730',
      '--out',
      out,
      '--warehouse',
      warehouse,
    ]);
    expect(written.code).toBe(0);
    expect((await readParquet(out)).map(([id]) => id)).toEqual(await apiLiveIds(t, key, 730));
  });
});
