import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/warehouse/export/index.js';
import {
  ExportInputError,
  type ExportOptions,
  type ExportProgress,
  exportModels,
  Warehouse,
} from '../../src/warehouse/index.js';
import { EXPORTED_TEST_MODELS, landFx, landThreeDays, writeModelsDir } from '../helpers/export-models.js';
import { makeTempDir } from './fixtures.js';

const NOW = Date.parse('2026-11-03T12:00:00.000Z');

let dir: string;
let cleanup: () => void;
let modelsDir: string;
let to: string;
let warehouse: Warehouse;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  modelsDir = writeModelsDir(dir);
  to = join(dir, 'exports');
  warehouse = await Warehouse.open(join(dir, 'wh.duckdb'), { modelsDir, clock: () => NOW });
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

/** Every file under `root`, relative, sorted. */
function tree(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** Every file under `root` with what identifies its content on disk: inode, size, mtime. */
function fingerprint(root: string): Record<string, string> {
  return Object.fromEntries(
    tree(root).map((f) => {
      const s = statSync(join(root, f));
      return [f, `${s.ino}:${s.size}:${s.mtimeMs}`];
    }),
  );
}

function readManifest() {
  return manifestSchema.parse(JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')));
}

/** The model's exported rows (hive-partitioned read), sorted. */
function exported(model: string, columns = '*'): Promise<Record<string, unknown>[]> {
  return warehouse.query(
    `SELECT ${columns} FROM read_parquet('${to}/${model}/*/*.parquet', hive_partitioning = true) ORDER BY ALL`,
  );
}

/** Asserts the files of `model` hold exactly its rows, each under the day its export date gives. */
async function expectSameRows(model: string, dateSql: string): Promise<void> {
  const fromFiles = await exported(model, '* EXCLUDE (date)');
  const fromModel = await warehouse.query(`SELECT * FROM ${model} ORDER BY ALL`);
  expect(fromFiles.length).toBeGreaterThan(0);
  expect(fromFiles).toEqual(fromModel);
  const [wrong] = await warehouse.query(
    `SELECT count(*) AS n FROM read_parquet('${to}/${model}/*/*.parquet', hive_partitioning = true)
     WHERE date IS DISTINCT FROM ${dateSql}`,
  );
  expect(wrong?.n).toBe(0);
}

async function exportedFixture(options: ExportOptions = {}) {
  await landThreeDays(warehouse);
  await warehouse.refreshModels();
  return exportModels(warehouse, { to, ...options });
}

describe('exportModels: layout and contents', () => {
  it('writes one parquet file per model and day under <to>/<model>/date=YYYY-MM-DD/, and a manifest', async () => {
    const summary = await exportedFixture();
    expect(tree(to)).toEqual([
      'dim_currencies/date=2026-11-03/part-0.parquet',
      'fct_fx_daily/date=2026-11-01/part-0.parquet',
      'fct_fx_daily/date=2026-11-02/part-0.parquet',
      'fct_fx_daily/date=2026-11-03/part-0.parquet',
      'manifest.json',
      'stg_fx__rates/date=2026-11-01/part-0.parquet',
      'stg_fx__rates/date=2026-11-02/part-0.parquet',
      'stg_fx__rates/date=2026-11-03/part-0.parquet',
    ]);
    expect(readdirSync(to).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(summary.models).toEqual([
      { model: 'stg_fx__rates', files: 3, rows: 18, removedDays: 0, rowsWithoutDate: 0 },
      { model: 'dim_currencies', files: 1, rows: 3, removedDays: 0, rowsWithoutDate: 0 },
      { model: 'fct_fx_daily', files: 3, rows: 9, removedDays: 0, rowsWithoutDate: 0 },
    ]);
    expect(summary.manifest).toBe(join(to, 'manifest.json'));
  });

  it('gives every model of the manifest a folder readers can open, empty or not, as pyarrow and polars read it', async () => {
    // Built on an empty warehouse: no model has a row.
    await warehouse.refreshModels();
    await exportModels(warehouse, { to });
    const manifest = readManifest();
    expect(Object.keys(manifest.models)).toEqual(EXPORTED_TEST_MODELS);
    for (const [model, entry] of Object.entries(manifest.models)) {
      expect(entry.rows).toBe(0);
      expect(entry.files.map((f) => f.path)).toEqual([`${model}/date=2026-11-03/part-0.parquet`]);
      // polars.scan_parquet('<model>/**/*.parquet', hive_partitioning=True) and pyarrow's dataset of
      // the folder both expand a glob of the folder's files; no file is their error.
      const types = await warehouse.query(
        `SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('${to}/${model}/**/*.parquet', hive_partitioning = true))`,
      );
      expect(types.map((t) => t.column_name)).toEqual(entry.schema.map((c) => c.name));
      expect(await exported(model)).toEqual([]);
    }
    // Once rows arrive, the day of no rows goes: only days with rows have files.
    await landThreeDays(warehouse);
    await warehouse.refreshModels();
    await exportModels(warehouse, { to });
    expect(tree(to).filter((f) => f.startsWith('fct_fx_daily/'))).toEqual([
      'fct_fx_daily/date=2026-11-01/part-0.parquet',
      'fct_fx_daily/date=2026-11-02/part-0.parquet',
      'fct_fx_daily/date=2026-11-03/part-0.parquet',
    ]);
    await expectSameRows('fct_fx_daily', 'day');
  });

  it('gives back exactly the rows of each model when read with hive_partitioning, date as a DATE column', async () => {
    await exportedFixture();
    await expectSameRows('stg_fx__rates', 'CAST(updated_at AS DATE)');
    await expectSameRows('fct_fx_daily', 'day');
    await expectSameRows('dim_currencies', "DATE '2026-11-03'");
    const types = await warehouse.query(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${to}/stg_fx__rates/*/*.parquet', hive_partitioning = true))`,
    );
    expect(types).toEqual([
      { column_name: 'currency', column_type: 'VARCHAR' },
      { column_name: 'rate', column_type: 'DOUBLE' },
      { column_name: 'updated_at', column_type: 'TIMESTAMP' },
      { column_name: 'fetched_at', column_type: 'TIMESTAMP' },
      { column_name: 'date', column_type: 'DATE' },
    ]);
  });

  it('lists in the manifest every file with its day, rows and bytes, the total rows, the schema and exported_at', async () => {
    await exportedFixture();
    const manifest = readManifest();
    expect(Object.keys(manifest.models)).toEqual(EXPORTED_TEST_MODELS);
    expect(manifest.updated_at).toBe('2026-11-03T12:00:00.000Z');
    const fct = manifest.models.fct_fx_daily;
    expect(fct).toMatchObject({
      export: 'day',
      exported_at: '2026-11-03T12:00:00.000Z',
      partition_by: 'date',
      rows: 9,
      schema: [
        { name: 'currency', type: 'VARCHAR' },
        { name: 'day', type: 'DATE' },
        { name: 'mean_rate', type: 'DOUBLE' },
        { name: 'updates', type: 'BIGINT' },
        { name: 'date', type: 'DATE' },
      ],
    });
    expect(manifest.models.dim_currencies?.export).toBe('snapshot');
    for (const [name, model] of Object.entries(manifest.models)) {
      const [count] = await warehouse.query(`SELECT count(*) AS n FROM ${name}`);
      expect(model.rows).toBe(count?.n);
      expect(model.rows).toBe(model.files.reduce((sum, f) => sum + f.rows, 0));
      for (const file of model.files) {
        expect(file.path).toBe(`${name}/date=${file.date}/part-0.parquet`);
        expect(file.bytes).toBe(statSync(join(to, file.path)).size);
        const [inFile] = await warehouse.query(
          `SELECT count(*) AS n FROM read_parquet('${join(to, file.path)}')`,
        );
        expect(file.rows).toBe(inFile?.n);
      }
    }
  });

  it('reports progress after each day with the rows written so far', async () => {
    const seen: ExportProgress[] = [];
    await exportedFixture({ models: ['stg_fx__rates'], onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { model: 'stg_fx__rates', day: '2026-11-01', daysDone: 1, daysTotal: 3, rows: 6 },
      { model: 'stg_fx__rates', day: '2026-11-02', daysDone: 2, daysTotal: 3, rows: 12 },
      { model: 'stg_fx__rates', day: '2026-11-03', daysDone: 3, daysTotal: 3, rows: 18 },
    ]);
  });

  it('puts all rows of a day in one file even when DuckDB splits the partition over several', async () => {
    writeFileSync(
      join(modelsDir, 'fct_spread.sql'),
      [
        '-- Rows of three days, interleaved.',
        '-- materialized: table',
        '-- export: d',
        "SELECT i, DATE '2026-11-01' + CAST(i % 3 AS INTEGER) AS d FROM range(30000) r(i)",
      ].join('\n'),
    );
    await warehouse.refreshModels();
    // With one partition file open at a time and small flushes, DuckDB writes each day as many files.
    await warehouse.withConnection(async (c) => {
      await c.run('SET GLOBAL partitioned_write_max_open_files = 1');
      await c.run('SET GLOBAL partitioned_write_flush_threshold = 1000');
    });
    await exportModels(warehouse, { to, models: ['fct_spread'] });
    expect(tree(to)).toEqual([
      'fct_spread/date=2026-11-01/part-0.parquet',
      'fct_spread/date=2026-11-02/part-0.parquet',
      'fct_spread/date=2026-11-03/part-0.parquet',
      'manifest.json',
    ]);
    await expectSameRows('fct_spread', 'd');
    expect(readManifest().models.fct_spread?.files.map((f) => f.rows)).toEqual([10000, 10000, 10000]);
  });

  it('exports from a warehouse opened read-only, with the snapshot day of that warehouse clock', async () => {
    await landThreeDays(warehouse);
    await warehouse.refreshModels();
    await warehouse.close();
    const later = Date.parse('2026-11-05T01:00:00.000Z');
    warehouse = await Warehouse.open(join(dir, 'wh.duckdb'), {
      readOnly: true,
      modelsDir,
      clock: () => later,
    });
    await exportModels(warehouse, { to, models: ['dim_currencies'] });
    expect(tree(to)).toEqual(['dim_currencies/date=2026-11-05/part-0.parquet', 'manifest.json']);
    expect(readManifest().models.dim_currencies?.exported_at).toBe('2026-11-05T01:00:00.000Z');
  });
});

describe('exportModels: exporting again', () => {
  it('is idempotent: the same files with the same rows, nothing duplicated', async () => {
    await exportedFixture();
    const first = readManifest();
    const files = tree(to);
    await exportModels(warehouse, { to });
    expect(tree(to)).toEqual(files);
    const second = readManifest();
    for (const name of EXPORTED_TEST_MODELS) {
      expect(second.models[name]?.files).toEqual(first.models[name]?.files);
      const [count] = await warehouse.query(`SELECT count(*) AS n FROM ${name}`);
      expect(await exported(name)).toHaveLength(count?.n as number);
    }
  });

  it('replaces a changed day and leaves the days outside since/until untouched', async () => {
    await exportedFixture();
    const before = fingerprint(to);
    await landFx(warehouse, '2026-11-02T21:00:00.000Z', 50);
    await warehouse.refreshModels();
    const summary = await exportModels(warehouse, { to, since: '2026-11-02', until: '2026-11-02' });
    expect(summary.models.map((m) => [m.model, m.files, m.rows])).toEqual([
      ['stg_fx__rates', 1, 9],
      ['dim_currencies', 0, 0],
      ['fct_fx_daily', 1, 3],
    ]);
    const after = fingerprint(to);
    for (const file of Object.keys(before)) {
      if (file.includes('date=2026-11-02') || file === 'manifest.json')
        expect(after[file]).not.toBe(before[file]);
      else expect(after[file]).toBe(before[file]);
    }
    expect(Object.keys(after)).toEqual(Object.keys(before));
    await expectSameRows('stg_fx__rates', 'CAST(updated_at AS DATE)');
    await expectSameRows('fct_fx_daily', 'day');
    const updates = await warehouse.query(
      `SELECT updates FROM read_parquet('${to}/fct_fx_daily/date=2026-11-02/part-0.parquet')`,
    );
    expect(updates.map((r) => r.updates)).toEqual([3, 3, 3]);
    const manifest = readManifest();
    expect(manifest.models.stg_fx__rates?.rows).toBe(21);
    expect(manifest.models.stg_fx__rates?.files.map((f) => f.rows)).toEqual([6, 9, 6]);
  });

  it('removes the folder of a day that lost its rows only when the day is inside the range exported', async () => {
    await exportedFixture();
    await warehouse.withConnection((c) =>
      c.run("DELETE FROM raw_fx_rates__hot WHERE updated_at < TIMESTAMP '2026-11-02'"),
    );
    await warehouse.refreshModels();

    const outside = await exportModels(warehouse, { to, models: ['stg_fx__rates'], since: '2026-11-02' });
    expect(outside.models[0]?.removedDays).toBe(0);
    expect(tree(to)).toContain('stg_fx__rates/date=2026-11-01/part-0.parquet');
    expect(readManifest().models.stg_fx__rates?.files.map((f) => [f.date, f.rows])).toEqual([
      ['2026-11-01', 6],
      ['2026-11-02', 6],
      ['2026-11-03', 6],
    ]);

    const inside = await exportModels(warehouse, { to, models: ['stg_fx__rates'] });
    expect(inside.models[0]?.removedDays).toBe(1);
    expect(existsSync(join(to, 'stg_fx__rates', 'date=2026-11-01'))).toBe(false);
    expect(readManifest().models.stg_fx__rates?.files.map((f) => f.date)).toEqual([
      '2026-11-02',
      '2026-11-03',
    ]);
    await expectSameRows('stg_fx__rates', 'CAST(updated_at AS DATE)');
  });

  it('keeps the manifest entries of the models it did not export', async () => {
    await exportedFixture();
    const before = readManifest();
    await landFx(warehouse, '2026-11-03T20:00:00.000Z', 60);
    await warehouse.refreshModels();
    await exportModels(warehouse, { to, models: ['fct_fx_daily'], clock: () => NOW + 60_000 });
    const after = readManifest();
    expect(after.models.stg_fx__rates).toEqual(before.models.stg_fx__rates);
    expect(after.models.dim_currencies).toEqual(before.models.dim_currencies);
    expect(after.models.fct_fx_daily?.exported_at).toBe('2026-11-03T12:01:00.000Z');
    expect(after.models.fct_fx_daily?.files.at(-1)?.rows).toBe(3);
  });

  it('keeps earlier days of a snapshot model: each export day has its own file', async () => {
    await exportedFixture({ models: ['dim_currencies'] });
    await exportModels(warehouse, { to, models: ['dim_currencies'], clock: () => NOW + 86_400_000 });
    expect(tree(to)).toEqual([
      'dim_currencies/date=2026-11-03/part-0.parquet',
      'dim_currencies/date=2026-11-04/part-0.parquet',
      'manifest.json',
    ]);
    const skipped = await exportModels(warehouse, { to, models: ['dim_currencies'], until: '2026-11-02' });
    expect(skipped.models).toEqual([
      { model: 'dim_currencies', files: 0, rows: 0, removedDays: 0, rowsWithoutDate: 0 },
    ]);
    expect(readManifest().models.dim_currencies?.files).toHaveLength(2);
  });

  it('serializes exports into the same folder started at once', async () => {
    await landThreeDays(warehouse);
    await warehouse.refreshModels();
    const [a, b] = await Promise.all([exportModels(warehouse, { to }), exportModels(warehouse, { to })]);
    expect(a.models).toEqual(b.models);
    expect(tree(to)).toHaveLength(8);
    await expectSameRows('stg_fx__rates', 'CAST(updated_at AS DATE)');
  });
});

describe('exportModels: bad input and failures', () => {
  it.each<[string, ExportOptions, RegExp]>([
    ['an unknown model', { models: ['fct_nope'] }, /no model is named fct_nope; models with an export: /],
    ['a model that is not exported', { models: ['int_fx_loads'] }, /model int_fx_loads is not exported/],
    ['a malformed since', { since: '2026-13-01' }, /since must be a day written YYYY-MM-DD/],
    ['a day that does not exist', { until: '2026-02-30' }, /until must be a day written YYYY-MM-DD/],
    [
      'since after until',
      { since: '2026-11-03', until: '2026-11-01' },
      /since \(2026-11-03\) is after until/,
    ],
  ])('refuses %s with a clear message and changes nothing', async (_, options, message) => {
    await exportedFixture();
    const before = fingerprint(to);
    const manifest = readFileSync(join(to, 'manifest.json'), 'utf8');
    const fresh = join(dir, 'fresh');
    for (const target of [to, fresh]) {
      const error = await exportModels(warehouse, { to: target, ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExportInputError);
      expect((error as Error).message).toMatch(message);
    }
    expect(fingerprint(to)).toEqual(before);
    expect(readFileSync(join(to, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses models never built, saying to run market models run first, and writes nothing', async () => {
    await landThreeDays(warehouse);
    const error = await exportModels(warehouse, { to }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportInputError);
    expect((error as Error).message).toBe(
      'models stg_fx__rates, dim_currencies, fct_fx_daily have not been built yet; run `market models run` first',
    );
    expect(existsSync(to)).toBe(false);
  });

  it('removes aside folders a crash left, and its own when the export fails, keeping the files in place', async () => {
    await exportedFixture();
    mkdirSync(join(to, '.tmp-crashed', 'stg_fx__rates'), { recursive: true });
    writeFileSync(join(to, '.tmp-crashed', 'stg_fx__rates', 'half.parquet'), 'PAR1 half written');
    writeFileSync(
      join(modelsDir, 'stg_broken.sql'),
      [
        '-- Binds, but fails while its rows are read.',
        '-- materialized: view',
        '-- export: CAST(updated_at AS DATE)',
        'SELECT updated_at, CAST(currency AS INTEGER) AS n FROM fx_rates',
      ].join('\n'),
    );
    await warehouse.refreshModels();
    const before = fingerprint(to);
    delete before['.tmp-crashed/stg_fx__rates/half.parquet'];
    const error = await exportModels(warehouse, { to, models: ['stg_broken'] }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/Could not convert string 'EUR'/);
    expect(readdirSync(to).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(fingerprint(to)).toEqual(before);
  });

  it('refuses to run while another live process holds the folder, and takes over a dead one', async () => {
    await landThreeDays(warehouse);
    await warehouse.refreshModels();
    mkdirSync(to);
    writeFileSync(join(to, '.export.lock'), String(process.ppid));
    await expect(exportModels(warehouse, { to })).rejects.toThrow(
      `another export (pid ${process.ppid}) is writing ${to}`,
    );
    expect(tree(to)).toEqual(['.export.lock']);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(to, '.export.lock'), String(dead));
    await exportModels(warehouse, { to });
    expect(tree(to)).toHaveLength(8);
    expect(existsSync(join(to, '.export.lock'))).toBe(false);
  });

  it('refuses a model with a date column of its own that is not its export date', async () => {
    writeFileSync(
      join(modelsDir, 'fct_dated.sql'),
      [
        '-- materialized: view',
        '-- export: CAST(updated_at AS DATE)',
        'SELECT updated_at, 1 AS date FROM fx_rates',
      ].join('\n'),
    );
    await landThreeDays(warehouse);
    await warehouse.refreshModels();
    await expect(exportModels(warehouse, { to, models: ['fct_dated'] })).rejects.toThrow(
      /model fct_dated has a column named date, which its export uses as the partition column/,
    );
    expect(existsSync(to)).toBe(false);
  });
});

describe('exportModels: atomicity', () => {
  it('never shows a reader polling the folder a parquet file it cannot read whole, nor a manifest it cannot parse', async () => {
    writeFileSync(
      join(modelsDir, 'fct_ticks.sql'),
      [
        '-- Generated ticks over 20 days, interleaved: large enough that exporting takes a while.',
        '-- materialized: view',
        '-- export: CAST(tick_at AS DATE)',
        "SELECT i AS tick_id, 'item-' || (i % 5000) AS item, CAST((i % 100000) / 100.0 AS DECIMAL(18,2)) AS price_usd,",
        '  make_timestamp(1793491200000000 + ((i * 7919) % (20 * 86400)) * 1000000) AS tick_at',
        'FROM range(3000000) r(i)',
      ].join('\n'),
    );
    await warehouse.refreshModels({ select: ['fct_ticks'] });
    const reader = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
    const failures: string[] = [];
    let filesRead = 0;
    let manifestsRead = 0;
    let exporting = true;
    const poll = async () => {
      while (exporting) {
        try {
          manifestSchema.parse(JSON.parse(await readFile(join(to, 'manifest.json'), 'utf8')));
          manifestsRead++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') failures.push(`manifest: ${String(error)}`);
        }
        // Like any reader of Hive layouts (pyarrow, Spark, a `<model>/*/*.parquet` glob), skip hidden folders.
        const visible = tree(to).filter(
          (f) => f.endsWith('.parquet') && !f.split('/').some((p) => p.startsWith('.')),
        );
        for (const file of visible) {
          if (!/^fct_ticks\/date=2026-11-\d\d\/part-0\.parquet$/.test(file))
            failures.push(`unexpected ${file}`);
          try {
            await reader.runAndReadAll(
              `SELECT count(*), sum(tick_id), max(item), sum(price_usd), max(tick_at) FROM read_parquet('${join(to, file)}')`,
            );
            filesRead++;
          } catch (error) {
            failures.push(`${file}: ${String(error)}`);
          }
        }
        await new Promise((r) => setImmediate(r));
      }
    };
    const polling = poll();
    const started = performance.now();
    try {
      await exportModels(warehouse, { to, models: ['fct_ticks'] });
      const firstMs = performance.now() - started;
      // Again: now every file is replaced while the reader reads the previous ones.
      await exportModels(warehouse, { to, models: ['fct_ticks'] });
      expect(firstMs).toBeGreaterThan(300);
    } finally {
      exporting = false;
      await polling;
      reader.closeSync();
    }
    expect(failures).toEqual([]);
    expect(filesRead).toBeGreaterThan(20);
    expect(manifestsRead).toBeGreaterThan(0);
    const [count] = await warehouse.query(
      `SELECT count(*) AS n, count(DISTINCT tick_id) AS ids FROM read_parquet('${to}/fct_ticks/*/*.parquet')`,
    );
    expect(count).toEqual({ n: 3_000_000, ids: 3_000_000 });
  });
});
