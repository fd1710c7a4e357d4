/**
 * A move to the lake on real DuckDB files: the layout (Hive folders, zstd parquet, the manifest),
 * and every relation of the README's list, every model, every landing table read whole and every
 * model's export answer the same before and after it, after a full refresh that reads the raw history from the lake, after
 * a reopen, and after more days land and build incrementally.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLakeTask } from '../../../src/collector/warehouse-tasks.js';
import { findSqlDir } from '../../../src/shared/project-root.js';
import { exportModels, Warehouse } from '../../../src/warehouse/index.js';
import { makeTempDir, T0 } from '../fixtures.js';
import { DAY, landDays, printRelations } from './lake-fixture.js';

let dir: string;
let cleanup: () => void;
let clock: { now: number };
let warehouse: Warehouse;
const path = () => join(dir, 'w.duckdb');
/** Three days landed and every relation printed three times or more: longer than vitest's default on a busy machine. */
const SLOW = 180_000;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  clock = { now: T0 };
  warehouse = await Warehouse.open(path(), { clock: () => clock.now });
});
afterEach(async () => {
  await warehouse.close();
  cleanup();
});

/** Exports every model into `<dir>/<name>` and prints each model's exported files: their days and rows, and a checksum of their rows. */
async function exportPrint(name: string): Promise<Record<string, unknown>> {
  const to = join(dir, name);
  await exportModels(warehouse, { to });
  const manifest = JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8'));
  const out: Record<string, unknown> = {};
  for (const [model, entry] of Object.entries(
    manifest.models as Record<string, { files: { date: string; rows: number }[] }>,
  )) {
    const [sum] = entry.files.length
      ? await warehouse.query(
          `SELECT CAST(sum(hash(r)::HUGEINT) AS VARCHAR) AS h FROM (SELECT COLUMNS(c -> c <> 'built_watermark') FROM read_parquet('${to}/${model}/*/*.parquet')) r`,
        )
      : [];
    out[model] = { files: entry.files.map((f) => `${f.date}: ${f.rows}`), sum: sum?.h ?? null };
  }
  return out;
}

it(
  'moves whole days into Hive-partitioned zstd parquet with a manifest, and every relation answers the same',
  async () => {
    await landDays(warehouse, clock, dir, 3);
    const before = await printRelations(warehouse);
    clock.now = T0 + 3 * DAY;
    const exported = await exportPrint('export-before');

    const summary = await warehouse.moveToLake(T0 + 2 * DAY);
    expect(summary.relations.raw_listing_events).toEqual({ files: 2, rows: 8 });
    expect(await printRelations(warehouse)).toEqual(before);
    expect(await exportPrint('export-after')).toEqual(exported);

    const lake = join(dir, 'lake');
    const manifest = JSON.parse(readFileSync(join(lake, 'manifest.json'), 'utf8'));
    expect(manifest.format).toBe(1);
    // The move, then the merge of its days of the models sorted by item group into their month.
    expect(manifest.moves).toEqual([
      { id: summary.moveId, before: '2026-11-03T00:00:00.000Z', at: '2026-11-04T00:00:00.000Z' },
      {
        id: expect.any(String),
        before: '2026-11-03T00:00:00.000Z',
        at: '2026-11-04T00:00:00.000Z',
        merged: ['fct_minask_hourly', 'int_minask_spells'],
      },
    ]);
    expect(manifest.relations.stg_listing_events.map((f: { path: string }) => f.path)).toEqual([
      'stg_listing_events/date=2026-11-01/part-0.parquet',
      'stg_listing_events/date=2026-11-02/part-0.parquet',
    ]);
    expect(Object.keys(manifest.relations)).toEqual(
      expect.arrayContaining(['raw_listing_observations', 'raw_listing_repeats', 'int_minask_minutes']),
    );
    for (const files of Object.values(manifest.relations) as {
      path: string;
      rows: number;
      bytes: number;
    }[][])
      for (const f of files) {
        expect(f.path).toMatch(
          /^[a-z_]+\/date=\d{4}-\d\d-\d\d\/part-\d+\.parquet$|^(int_minask_spells|fct_minask_hourly)\/month=2026-11\/part-0\.parquet$/,
        );
        expect(existsSync(join(lake, f.path))).toBe(true);
      }
    expect(readdirSync(join(lake, 'raw_listing_events'))).toEqual(['date=2026-11-01', 'date=2026-11-02']);

    // The rows left the file; what an outside engine reads of the lake is typed by its path.
    expect(await warehouse.query('SELECT count(*) AS n FROM raw_listing_events__hot')).toEqual([{ n: 4 }]);
    // One name per relation: the landing table's name reads file and lake (printRelations above),
    // its rows in the file are the __hot table's, and the former history schema is gone.
    expect(await warehouse.query('SELECT count(*)::INT AS n FROM raw_listing_events')).toEqual([{ n: 12 }]);
    expect(
      await warehouse.query(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'history'",
      ),
    ).toEqual([]);
    const outside = await (await DuckDBInstance.create(':memory:')).connect();
    const read = await outside.runAndReadAll(
      `SELECT typeof(date) AS t, count(*) AS n, max(compression) AS c FROM read_parquet('${lake}/raw_listing_events/*/*.parquet', hive_partitioning = true)
     JOIN (SELECT DISTINCT compression FROM parquet_metadata('${lake}/raw_listing_events/*/*.parquet')) ON true GROUP BY ALL`,
    );
    expect(read.getRowObjectsJS()).toEqual([{ t: 'DATE', n: 8n, c: 'ZSTD' }]);
    outside.closeSync();

    // A full refresh reads the raw history from the lake, and a reopen reads the lake again.
    await warehouse.refreshModels({ fullRefresh: true });
    expect(await printRelations(warehouse)).toEqual(before);
    await warehouse.close();
    warehouse = await Warehouse.open(path(), { clock: () => clock.now });
    expect(await printRelations(warehouse)).toEqual(before);
    expect(await warehouse.lakeStatus()).toMatchObject({ days: 2, before: '2026-11-03T00:00:00.000Z' });
  },
  SLOW,
);

it(
  'builds incrementally after a move as a full rebuild from the raw history does',
  async () => {
    await landDays(warehouse, clock, dir, 2);
    clock.now = T0 + 2 * DAY;
    await warehouse.moveToLake(T0 + 2 * DAY);
    await landDays(warehouse, clock, dir, 2, 2);
    const incremental = await printRelations(warehouse);
    await warehouse.refreshModels({ fullRefresh: true });
    expect(await printRelations(warehouse)).toEqual(incremental);
    // A second move adds the next day's parts and leaves every answer as it was.
    const second = await warehouse.moveToLake(T0 + 3 * DAY);
    expect(second.relations.int_minask_minutes?.files).toBe(1);
    expect(await printRelations(warehouse)).toEqual(incremental);
    expect(await warehouse.lakeStatus()).toMatchObject({ days: 3, before: '2026-11-04T00:00:00.000Z' });
  },
  SLOW,
);

it(
  'refuses an instant to come, and moves nothing when no row is old enough',
  async () => {
    await landDays(warehouse, clock, dir, 1);
    await expect(warehouse.moveToLake(clock.now + 1)).rejects.toThrow(/after now/);
    expect((await warehouse.moveToLake(T0)).moveId).toBeNull();
    expect(existsSync(join(dir, 'lake', 'manifest.json'))).toBe(false);
  },
  SLOW,
);

it(
  'moves on schedule the days older than the hot window, keeping today and --hot-days days before it',
  async () => {
    await landDays(warehouse, clock, dir, 3);
    clock.now = T0 + 3 * DAY + 5 * 3_600_000;
    const moved = await createLakeTask(warehouse, 1).run(new AbortController().signal);
    expect(moved).toBeGreaterThan(0);
    expect(await warehouse.lakeStatus()).toMatchObject({ days: 2, before: '2026-11-03T00:00:00.000Z' });
    // The next run that day finds nothing older left.
    expect(await createLakeTask(warehouse, 1).run(new AbortController().signal)).toBe(0);
  },
  SLOW,
);

it(
  'writes the lake files of a model with an order_by line sorted by it, and its hot days',
  async () => {
    await landDays(warehouse, clock, dir, 3);
    // The moved days' file (their month's), read in the order it is stored in.
    const key = 'app_id, market_hash_name, wear, doppler_phase, minute';
    const stored = (from: string) =>
      warehouse.query(`SELECT ${key} FROM ${from}`).then((rows) => rows.map((r) => JSON.stringify(r)));
    const sorted = (rows: string[]) =>
      rows
        .map((r) => JSON.parse(r) as Record<string, string | number | null>)
        .sort((a, b) => compareBy(a, b, ['app_id', 'market_hash_name', 'wear', 'doppler_phase', 'minute']))
        .map((r) => JSON.stringify(r));
    clock.now = T0 + 3 * DAY;
    const lake = warehouse.lakeDir as string;
    await warehouse.moveToLake(T0 + 2 * DAY);
    const days = readdirSync(join(lake, 'int_minask_spells'));
    expect(days).toEqual(['month=2026-11']);
    for (const day of days) {
      const [file] = readdirSync(join(lake, 'int_minask_spells', day));
      const rows = await stored(`read_parquet('${join(lake, 'int_minask_spells', day, file as string)}')`);
      expect(rows.length).toBeGreaterThan(1);
      expect(rows).toEqual(sorted(rows));
    }
    // The days left in the file too, once the move deleted the days it took (rowid: stored order).
    for (const [model, time] of [
      ['int_minask_spells', 'minute'],
      ['fct_minask_hourly', 'hour'],
    ] as const) {
      const columns = ['app_id', 'market_hash_name', 'wear', 'doppler_phase', time];
      const rows = (
        await warehouse.query(`SELECT ${columns.join(', ')} FROM ${model}__hot ORDER BY rowid`)
      ).map((r) => JSON.stringify(r));
      expect(rows.length).toBeGreaterThan(1);
      expect(rows, model).toEqual(
        rows
          .map((r) => JSON.parse(r) as Record<string, string | number | null>)
          .sort((a, b) => compareBy(a, b, columns))
          .map((r) => JSON.stringify(r)),
      );
    }
  },
  SLOW,
);

it(
  'reads the hot days of a moved relation without opening its lake files',
  async () => {
    await landDays(warehouse, clock, dir, 3);
    clock.now = T0 + 3 * DAY;
    await warehouse.moveToLake(T0 + 2 * DAY);
    const hot =
      "SELECT count(*)::INTEGER AS n FROM int_minask_minutes WHERE minute >= TIMESTAMP '2026-11-03'";
    const [before] = await warehouse.query(hot);
    expect(before?.n).toBeGreaterThan(0);
    // A lake file no longer parquet (the first one stays: DuckDB reads it to bind the files' columns).
    const manifest = JSON.parse(readFileSync(join(dir, 'lake', 'manifest.json'), 'utf8'));
    const files = manifest.relations.int_minask_minutes.map((f: { path: string }) => f.path);
    expect(files.length).toBeGreaterThan(1);
    writeFileSync(join(dir, 'lake', files.at(-1)), 'not parquet');
    expect(await warehouse.query(hot)).toEqual([before]);
    await expect(warehouse.query('SELECT count(*) FROM int_minask_minutes')).rejects.toThrow();
  },
  SLOW,
);

it(
  'runs with a build the same model tests after a move as before: a moved model counts as built',
  async () => {
    await landDays(warehouse, clock, dir, 3);
    const withBuild = async () =>
      (await warehouse.query('SELECT DISTINCT model FROM model_build_tests ORDER BY model')).map(
        (r) => r.model,
      );
    const before = await withBuild();
    clock.now = T0 + 3 * DAY;
    await warehouse.moveToLake(T0 + 2 * DAY);
    await warehouse.refreshModels();
    // fct_minask_hourly's row count reads int_minask_spells, over every minute of the history.
    expect(await withBuild()).toEqual(before);
    expect(before).not.toContain('fct_minask_hourly');
  },
  SLOW,
);

/** Compares two rows by `columns` in turn, a null first. */
function compareBy(
  a: Record<string, string | number | null>,
  b: Record<string, string | number | null>,
  columns: string[],
): number {
  for (const column of columns) {
    const [x, y] = [a[column] ?? null, b[column] ?? null];
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

it(
  'moves the models whose header has a lake: line, and those alone',
  async () => {
    // The analyst's folder: the shipped models, fct_minask_daily without its lake: line.
    const models = join(dir, 'models');
    cpSync(findSqlDir('models'), models, { recursive: true });
    const daily = join(models, 'fct_minask_daily.sql');
    writeFileSync(daily, readFileSync(daily, 'utf8').replace(/^-- lake: day\n/m, ''));
    await warehouse.close();
    warehouse = await Warehouse.open(path(), { clock: () => clock.now, modelsDir: models });
    await landDays(warehouse, clock, dir, 3);
    const before = await printRelations(warehouse);
    clock.now = T0 + 3 * DAY;
    const summary = await warehouse.moveToLake(T0 + 2 * DAY);
    const declared = readdirSync(models)
      .filter((f) => /^-- lake: \w+$/m.test(readFileSync(join(models, f), 'utf8')))
      .map((f) => f.replace(/\.sql$/, ''));
    expect(declared).toHaveLength(6);
    const moved = Object.keys(summary.relations).filter((r) => !r.startsWith('raw_'));
    expect(moved.sort()).toEqual(declared.sort());
    const kinds = await warehouse.query(
      `SELECT table_name AS name, table_type AS type FROM information_schema.tables
       WHERE table_name IN ('fct_minask_daily', 'fct_minask_daily__hot', 'fct_minask_hourly', 'fct_minask_hourly__hot') ORDER BY name`,
    );
    expect(kinds).toEqual([
      { name: 'fct_minask_daily', type: 'BASE TABLE' },
      { name: 'fct_minask_hourly', type: 'VIEW' },
      { name: 'fct_minask_hourly__hot', type: 'BASE TABLE' },
    ]);
    expect(await printRelations(warehouse)).toEqual(before);
    // A model whose days moved keeps its line: without it, its build is refused.
    const hourly = join(models, 'fct_minask_hourly.sql');
    writeFileSync(hourly, readFileSync(hourly, 'utf8').replace(/^-- (lake|order_by): .*\n/gm, ''));
    await expect(warehouse.refreshModels()).rejects.toThrow(
      /model fct_minask_hourly \(.*fct_minask_hourly\.sql\): its old days are in the lake: keep its lake: line/,
    );
  },
  SLOW,
);
