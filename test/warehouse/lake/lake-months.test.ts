/**
 * After each move, the lake's day files of the models with an `order_by:` line are merged into one
 * file a month, sorted by that line, listed in the manifest with the days it holds; the days moved
 * later join their month's file, a month over is left as it is; every relation answers as before,
 * outside readers read the files through the manifest, and a move with nothing new merges nothing.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Warehouse } from '../../../src/warehouse/index.js';
import { type LakeManifest, readLakeManifest } from '../../../src/warehouse/lake/manifest.js';
import { makeTempDir, T0 } from '../fixtures.js';
import { DAY, landDays, listedFiles, parquetFilesIn, printRelations } from './lake-fixture.js';

/** Two days of October, then the 1st of November (and later the 2nd). */
const START = T0 - 2 * DAY;
const SORTED = { int_minask_spells: 'minute', fct_minask_hourly: 'hour' } as const;

let dir: string;
let lake: string;
let cleanup: () => void;
let warehouse: Warehouse;
let printed: Record<string, string>;
const clock = { now: START };
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  lake = join(dir, 'lake');
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  await landDays(warehouse, clock, dir, 3, 0, START);
  printed = await printRelations(warehouse);
});
afterAll(async () => {
  await warehouse?.close();
  cleanup();
});

/** Per sorted model, its files' path and days. */
function monthFiles(manifest: LakeManifest) {
  return Object.keys(SORTED).map((relation) =>
    (manifest.relations[relation] ?? []).map(({ path, date, through }) => ({ path, date, through })),
  );
}

/** Rows of `sql` read by DuckDB alone, as an outside reader would. */
async function readOutside(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

it('merges each month moved into one sorted file a model, the manifest saying its days', async () => {
  // Every row before the 2nd of November.
  clock.now = T0 + DAY + 3_600_000;
  const summary = await warehouse.moveToLake(T0 + DAY);
  const both = ['2026-10', '2026-11'];
  expect(summary.merged).toEqual({ fct_minask_hourly: both, int_minask_spells: both });
  expect(await printRelations(warehouse)).toEqual(printed);

  const manifest = await readLakeManifest(lake);
  expect(manifest.moves.at(-1)?.merged).toEqual(['fct_minask_hourly', 'int_minask_spells']);
  expect(monthFiles(manifest)).toEqual(
    Object.keys(SORTED).map((relation) => [
      { path: `${relation}/month=2026-10/part-0.parquet`, date: '2026-10-30', through: '2026-10-31' },
      { path: `${relation}/month=2026-11/part-0.parquet`, date: '2026-11-01', through: '2026-11-01' },
    ]),
  );
  for (const [relation, time] of Object.entries(SORTED)) {
    const [october, november] = (manifest.relations[relation] ?? []).map((f) => `'${join(lake, f.path)}'`);
    // The month holds its days' rows, in the line's order (several groups over two days: the days'
    // files one after the other would not be).
    const stored = await readOutside(
      `SELECT ${time}::VARCHAR AS t, market_hash_name AS name FROM read_parquet(${october})`,
    );
    const sorted = await readOutside(
      `SELECT ${time}::VARCHAR AS t, market_hash_name AS name FROM read_parquet(${october})
       ORDER BY app_id, market_hash_name, wear, doppler_phase, ${time}`,
    );
    expect(stored).toEqual(sorted);
    expect(new Set(stored.map((r) => r.name)).size).toBeGreaterThan(1);
    expect(
      await readOutside(
        `SELECT DISTINCT ${time}::DATE::VARCHAR AS day FROM read_parquet(${october}) ORDER BY day`,
      ),
    ).toEqual([{ day: '2026-10-30' }, { day: '2026-10-31' }]);
    const [all] = await readOutside(
      `SELECT count(*)::INTEGER AS n FROM read_parquet([${october}, ${november}])`,
    );
    const [inWarehouse] = await warehouse.query(
      `SELECT count(*)::INTEGER AS n FROM ${relation} WHERE ${time} < TIMESTAMP '2026-11-02'`,
    );
    expect(all?.n).toBe(inWarehouse?.n);
  }
  // A relation without the line keeps its days; the merged days' files and folders are gone.
  expect((manifest.relations.int_minask_minutes ?? []).map((f) => f.date)).toEqual([
    '2026-10-30',
    '2026-10-31',
    '2026-11-01',
  ]);
  expect(parquetFilesIn(lake)).toEqual(listedFiles(manifest));
  expect(readdirSync(join(lake, 'int_minask_spells')).sort()).toEqual(['month=2026-10', 'month=2026-11']);

  // Nothing new: no move, no merge, the same manifest.
  const again = await warehouse.moveToLake(T0 + DAY);
  expect(again).toMatchObject({ moveId: null, merged: {} });
  expect(await readLakeManifest(lake)).toEqual(manifest);
});

it('merges the days moved later into their month, a month over left as it is', async () => {
  await landDays(warehouse, clock, dir, 1, 3, START);
  const now = await printRelations(warehouse);
  clock.now = T0 + 2 * DAY + 3_600_000;
  const summary = await warehouse.moveToLake(T0 + 2 * DAY);
  expect(summary.merged).toEqual({ fct_minask_hourly: ['2026-11'], int_minask_spells: ['2026-11'] });
  expect(await printRelations(warehouse)).toEqual(now);
  const manifest = await readLakeManifest(lake);
  expect(monthFiles(manifest)).toEqual(
    Object.keys(SORTED).map((relation) => [
      { path: `${relation}/month=2026-10/part-0.parquet`, date: '2026-10-30', through: '2026-10-31' },
      { path: `${relation}/month=2026-11/part-1.parquet`, date: '2026-11-01', through: '2026-11-02' },
    ]),
  );
  expect(parquetFilesIn(lake)).toEqual(listedFiles(manifest));
  printed = now;
});

it('reads the same after an open, with the month files recorded', async () => {
  await warehouse.close();
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  expect(await printRelations(warehouse)).toEqual(printed);
  const [recorded] = await warehouse.query(
    "SELECT count(*)::INTEGER AS n FROM lake_files WHERE path LIKE '%/month=%'",
  );
  expect(recorded?.n).toBe(4);
});
