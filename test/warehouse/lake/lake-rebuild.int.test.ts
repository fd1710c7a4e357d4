/**
 * A full build of a model that moved to the lake reaches the lake's days, through `market models
 * run --full-refresh`: three days landed, two moved, a column added to `stg_listing_events` in a
 * copy of the models folder. Every day, in the file and in the lake, then has the column, as an
 * outside reader of the manifest sees too, and a later move keeps it; a full refresh of unchanged
 * models leaves every relation as it was; and the run killed (SIGKILL) at each step of the build
 * and of the publishing loses and doubles nothing: the next open completes it or it rolled back.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSqlDir } from '../../../src/shared/project-root.js';
import { Warehouse } from '../../../src/warehouse/index.js';
import { readLakeManifest } from '../../../src/warehouse/lake/index.js';
import { runMarket } from '../../helpers/cli.js';
import { makeTempDir, T0 } from '../fixtures.js';
import { DAY, landDays, listedFiles, parquetFilesIn, printRelations } from './lake-fixture.js';

/** The column the changed model adds. */
const ADDED = 'event_id_length';
/** Per day of `stg_listing_events` once rebuilt: its rows, and those with the added column. */
const THREE_DAYS = [
  { day: '2026-11-01', rows: 3, filled: 3 },
  { day: '2026-11-02', rows: 3, filled: 3 },
  { day: '2026-11-03', rows: 3, filled: 3 },
];
/** After the three days: the clock of every in-process open. */
const NOW = T0 + 3 * DAY;

let dir: string;
let cleanup: () => void;
/** The warehouse the tests work on (restored from `pristine` by each); its lake is `<base>/lake`. */
let base: string;
let pristine: string;
/** The copy of the models folder with the column added. */
let changed: string;
/** Every relation after the three days landed and built with the shipped models. */
let landed: Record<string, string>;
/** Every relation of the same file without a lake, built in full with the changed models. */
let rebuilt: Record<string, string>;

const path = () => join(base, 'w.duckdb');
const lake = () => join(base, 'lake');

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  base = join(dir, 'base');
  pristine = join(dir, 'pristine');
  mkdirSync(base);
  changed = join(dir, 'models');
  cpSync(findSqlDir('models'), changed, { recursive: true });
  const model = join(changed, 'stg_listing_events.sql');
  const sql = readFileSync(model, 'utf8');
  writeFileSync(
    model,
    sql.replace('SELECT * EXCLUDE (raw)', `SELECT * EXCLUDE (raw), length(event_id) AS ${ADDED}`),
  );

  const clock = { now: T0 };
  const warehouse = await Warehouse.open(path(), { clock: () => clock.now });
  await landDays(warehouse, clock, dir, 3);
  landed = await printRelations(warehouse);
  await warehouse.close();

  // The answer a lake must not change: the same file, no day moved, built in full with the column.
  const reference = join(dir, 'reference');
  mkdirSync(reference);
  cpSync(path(), join(reference, 'w.duckdb'));
  const unmoved = await Warehouse.open(join(reference, 'w.duckdb'), { clock: () => NOW, modelsDir: changed });
  await unmoved.refreshModels({ fullRefresh: true });
  rebuilt = await printRelations(unmoved);
  await unmoved.close();

  const moving = await Warehouse.open(path(), { clock: () => NOW });
  await moving.moveToLake(T0 + 2 * DAY);
  await moving.close();
  cpSync(base, pristine, { recursive: true });
}, 180_000);
afterAll(() => cleanup());

/** Puts back the warehouse with two days moved, at the same path (its lake's folder is recorded in it). */
function restore(): void {
  rmSync(base, { recursive: true, force: true });
  cpSync(pristine, base, { recursive: true });
}

/** `market models run --full-refresh` on the warehouse, with `env` added. */
function fullRefresh(models: string | null, env: Record<string, string> = {}) {
  const dirFlag = models === null ? [] : ['--models', models];
  return runMarket(['models', 'run', '--full-refresh', '--warehouse', path(), ...dirFlag], env);
}

/** Opens the warehouse with the changed models, runs `use`, closes it. */
async function withWarehouse<T>(use: (warehouse: Warehouse) => Promise<T>): Promise<T> {
  const warehouse = await Warehouse.open(path(), { clock: () => NOW, modelsDir: changed });
  try {
    return await use(warehouse);
  } finally {
    await warehouse.close();
  }
}

/**
 * What an outside engine reads of `stg_listing_events` by the manifest alone: per day, its rows
 * and how many have the added column (null when the files lack it).
 */
async function readByManifest(): Promise<{ day: string; rows: number; filled: number | null }[]> {
  const manifest = await readLakeManifest(lake());
  const files = (manifest.relations.stg_listing_events ?? []).map((f) => `'${join(lake(), f.path)}'`);
  const outside = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const read = `read_parquet([${files.join(', ')}], hive_partitioning = true)`;
    const columns = (await outside.runAndReadAll(`DESCRIBE SELECT * FROM ${read}`)).getRowObjectsJS();
    const has = columns.some((c) => c.column_name === ADDED);
    const rows = await outside.runAndReadAll(
      `SELECT CAST(date AS VARCHAR) AS day, count(*)::INTEGER AS rows,
              ${has ? `count(${ADDED})::INTEGER` : 'NULL'} AS filled
       FROM ${read} GROUP BY ALL ORDER BY day`,
    );
    return rows.getRowObjectsJS() as { day: string; rows: number; filled: number | null }[];
  } finally {
    outside.closeSync();
  }
}

/** Per day of `stg_listing_events` as the warehouse reads it (file and lake): rows, and rows with the column. */
async function daysInWarehouse(warehouse: Warehouse) {
  return warehouse.query(
    `SELECT strftime(CAST(received_at AS DATE), '%Y-%m-%d') AS day, count(*) AS rows, count(${ADDED}) AS filled
     FROM stg_listing_events GROUP BY ALL ORDER BY day`,
  );
}

describe('a full build of a moved model', () => {
  it('reaches the lake: every day has the new column, outside readers see it, a later move keeps it', async () => {
    restore();
    expect(await readByManifest()).toEqual([
      { day: '2026-11-01', rows: 3, filled: null },
      { day: '2026-11-02', rows: 3, filled: null },
    ]);
    const run = await fullRefresh(changed);
    expect(run.code, run.stderr).toBe(0);
    expect(await readByManifest()).toEqual(THREE_DAYS.slice(0, 2));

    const manifest = await readLakeManifest(lake());
    expect(manifest.moves.at(-1)?.rebuilt).toEqual(expect.arrayContaining(['stg_listing_events']));
    // The new generation alone is listed and on disk: the replaced files went after.
    expect(manifest.relations.stg_listing_events?.map((f) => f.path)).toEqual([
      'stg_listing_events/date=2026-11-01/part-1.parquet',
      'stg_listing_events/date=2026-11-02/part-1.parquet',
    ]);
    expect(parquetFilesIn(lake())).toEqual(listedFiles(manifest));

    await withWarehouse(async (warehouse) => {
      expect(await daysInWarehouse(warehouse)).toEqual(THREE_DAYS);
      expect(await printRelations(warehouse)).toEqual(rebuilt);
      // The next move keeps the rebuilt days, and moves the third with its column.
      await warehouse.moveToLake(T0 + 3 * DAY);
      expect(await daysInWarehouse(warehouse)).toEqual(THREE_DAYS);
      expect(await printRelations(warehouse)).toEqual(rebuilt);
    });
    expect(await readByManifest()).toEqual(THREE_DAYS);
  }, 180_000);

  it('of unchanged models leaves every relation as it was', async () => {
    restore();
    const run = await fullRefresh(null);
    expect(run.code, run.stderr).toBe(0);
    expect((await readLakeManifest(lake())).moves.at(-1)?.rebuilt?.length).toBeGreaterThan(0);
    const warehouse = await Warehouse.open(path(), { clock: () => NOW });
    try {
      expect(await printRelations(warehouse)).toEqual(landed);
    } finally {
      await warehouse.close();
    }
  }, 180_000);
});

describe.each(['building', 'copied', 'manifest', 'deleting', 'removing'])(
  'a full build killed at %s',
  (step) => {
    it('loses and doubles nothing, and the next open completes it or it rolled back', async () => {
      restore();
      const run = await fullRefresh(changed, { MARKET_LAKE_CRASH_AT: step });
      expect(run.code, run.stderr).toBeNull();

      await withWarehouse(async (warehouse) => {
        // Killed in the build's transaction, nothing changed; after it, the build is what every reader sees.
        expect(await printRelations(warehouse)).toEqual(step === 'building' ? landed : rebuilt);
        if (step === 'building') {
          await warehouse.refreshModels({ fullRefresh: true });
          expect(await printRelations(warehouse)).toEqual(rebuilt);
        }
        // The open finished what the kill left, but removals cut short (the next move ends them).
        if (step !== 'removing')
          expect(parquetFilesIn(lake())).toEqual(listedFiles(await readLakeManifest(lake())));
        expect(await readByManifest()).toEqual(THREE_DAYS.slice(0, 2));
        await warehouse.moveToLake(T0 + 3 * DAY);
        expect(await daysInWarehouse(warehouse)).toEqual(THREE_DAYS);
      });
      expect(parquetFilesIn(lake())).toEqual(listedFiles(await readLakeManifest(lake())));
      expect(await readByManifest()).toEqual(THREE_DAYS);
    }, 180_000);
  },
);
