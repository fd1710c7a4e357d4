import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProgressPrinter } from '../../src/cli/export-progress.js';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { manifestSchema } from '../../src/warehouse/export/index.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';
import { startTestCollector } from '../helpers/collector.js';
import { EXPORTED_TEST_MODELS, landThreeDays, writeModelsDir } from '../helpers/export-models.js';
import { startTestService, type TestService } from '../helpers/service.js';

let dir: string;
let modelsDir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-cli-export-'));
  modelsDir = writeModelsDir(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Rows of the model's files read back the way an analyst would, in a DuckDB of their own. */
async function readBack(to: string, model: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT count(*) FROM read_parquet('${to}/${model}/*/*.parquet', hive_partitioning = true)`,
    );
    return Number(reader.getRows()[0]?.[0]);
  } finally {
    instance.closeSync();
  }
}

function readManifest(to: string) {
  return manifestSchema.parse(JSON.parse(readFileSync(join(to, 'manifest.json'), 'utf8')));
}

describe('market export with no collector running', () => {
  let warehouse: string;

  beforeAll(async () => {
    warehouse = join(dir, 'direct.duckdb');
    const opened = await Warehouse.open(warehouse, { modelsDir });
    await landThreeDays(opened);
    await opened.refreshModels();
    await opened.close();
  });

  it('opens the warehouse read-only, writes every exported model, and prints one line per model', async () => {
    const to = join(dir, 'direct-exports');
    const result = await runMarket([
      'export',
      '--warehouse',
      warehouse,
      '--to',
      to,
      '--models-dir',
      modelsDir,
    ]);
    expect(result.stderr).toBe(
      [
        'market export: stg_fx__rates 3 days, 18 rows',
        'market export: dim_currencies 1 days, 3 rows',
        'market export: fct_fx_daily 3 days, 9 rows',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'stg_fx__rates: 3 files, 18 rows\ndim_currencies: 1 files, 3 rows\nfct_fx_daily: 3 files, 9 rows\n',
    );
    expect(Object.keys(readManifest(to).models)).toEqual(EXPORTED_TEST_MODELS);
    expect(readdirSync(join(to, 'fct_fx_daily'))).toEqual([
      'date=2026-11-01',
      'date=2026-11-02',
      'date=2026-11-03',
    ]);
    expect(await readBack(to, 'stg_fx__rates')).toBe(18);
    expect(await readBack(to, 'fct_fx_daily')).toBe(9);
  });

  it('exports only the models and days asked for', async () => {
    const to = join(dir, 'some-exports');
    const result = await runMarket([
      'export',
      '--warehouse',
      warehouse,
      '--to',
      to,
      '--models-dir',
      modelsDir,
      '--models',
      'fct_fx_daily',
      '--since',
      '2026-11-02',
      '--until',
      '2026-11-03',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('fct_fx_daily: 2 files, 6 rows\n');
    expect(readdirSync(to).sort()).toEqual(['fct_fx_daily', 'manifest.json']);
    expect(readdirSync(join(to, 'fct_fx_daily'))).toEqual(['date=2026-11-02', 'date=2026-11-03']);
  });

  it.each<[string, string[], RegExp]>([
    ['a malformed day', ['--since', '2026-13-01'], /invalid option since: give a day written YYYY-MM-DD/],
    [
      'since after until',
      ['--since', '2026-11-03', '--until', '2026-11-01'],
      /since \(2026-11-03\) is after until/,
    ],
    ['an unknown model', ['--models', 'fct_nope'], /no model is named fct_nope/],
    ['a model that is not exported', ['--models', 'int_fx_loads'], /model int_fx_loads is not exported/],
  ])(
    'refuses %s with exit code 2, a message without a stack, and writes nothing',
    async (_, args, message) => {
      const to = join(dir, 'refused');
      const result = await runMarket([
        'export',
        '--warehouse',
        warehouse,
        '--to',
        to,
        '--models-dir',
        modelsDir,
        ...args,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('    at ');
      expect(result.stdout).toBe('');
      expect(existsSync(to)).toBe(false);
    },
  );

  it('says so when the warehouse file does not exist', async () => {
    const result = await runMarket([
      'export',
      '--warehouse',
      join(dir, 'missing.duckdb'),
      '--to',
      join(dir, 'x'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^market: cannot open the warehouse .*missing\.duckdb/);
  });
});

describe('market export through a running collector', () => {
  let t: TestService;
  let collector: RunningCollector;
  let warehouse: string;
  const scheduled = () => join(dir, 'scheduled-exports');

  beforeAll(async () => {
    t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
    const { key } = await t.account({ balance_usd: 10 });
    collector = await startTestCollector(t, key, {
      sources: { games: [570] },
      warehouse: { modelsDir },
      work: { exportCron: '* * * * * *', exportDir: scheduled() },
    });
    warehouse = collector.warehouse.path;
    // A hook: vi.waitFor, since expect.poll runs only inside a test.
    await vi.waitFor(
      async () => {
        const [row] = await collector.warehouse.query('SELECT count(*) AS n FROM fx_rates');
        expect(Number(row?.n)).toBeGreaterThan(0);
      },
      { timeout: 20_000 },
    );
  });
  afterAll(async () => {
    await collector?.stop();
    await t?.close();
  });

  it('reports scheduled exports of models not built yet on the status board, then exports them once built', async () => {
    await expect
      .poll(() => collector.status().some((s) => s.name === 'export' && s.lastError !== null), {
        timeout: 10_000,
      })
      .toBe(true);
    const board = collector.status().find((s) => s.name === 'export');
    expect(board?.lastError).toMatch(/have not been built yet; run `market models run` first/);
    expect(existsSync(scheduled())).toBe(false);

    await collector.warehouse.refreshModels();
    // The manifest is rewritten as each model is done; wait for the run to have done all three.
    await expect
      .poll(
        () =>
          existsSync(join(scheduled(), 'manifest.json')) &&
          Object.keys(readManifest(scheduled()).models).length === EXPORTED_TEST_MODELS.length,
        { timeout: 10_000 },
      )
      .toBe(true);
    const manifest = readManifest(scheduled());
    expect(Object.keys(manifest.models)).toEqual(EXPORTED_TEST_MODELS);
    const today = new Date().toISOString().slice(0, 10);
    expect(manifest.models.dim_currencies?.files.map((f) => f.date)).toEqual([today]);
    expect(manifest.models.stg_fx__rates?.rows).toBeGreaterThan(0);
    await expect
      .poll(() => (collector.status().find((s) => s.name === 'export')?.landed ?? 0) > 0, { timeout: 5_000 })
      .toBe(true);
  });

  it('runs the export inside the collector, streaming its progress, and prints one line per model', async () => {
    await collector.warehouse.refreshModels();
    // In the collector's export folder (the locked-down warehouse writes nowhere else), beside the
    // scheduled exports' files: one of those, every second, must not replace files between the
    // reads of the manifest and of the parquet below.
    const to = join(scheduled(), 'asked');
    const exportedBefore = collector.status().find((s) => s.name === 'export')?.landed ?? 0;
    const result = await runMarket(['export', '--warehouse', warehouse, '--to', to]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^market export: stg_fx__rates \d+ days, \d+ rows\n/);
    const manifest = readManifest(to);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual(
      ['stg_fx__rates', 'dim_currencies', 'fct_fx_daily'].map(
        (m) => `${m}: ${manifest.models[m]?.files.length} files, ${manifest.models[m]?.rows} rows`,
      ),
    );
    const [daily] = await collector.warehouse.query('SELECT count(*) AS n FROM fct_fx_daily');
    expect(manifest.models.fct_fx_daily?.rows).toBe(daily?.n);
    expect(await readBack(to, 'fct_fx_daily')).toBe(daily?.n);
    expect(await readBack(to, 'stg_fx__rates')).toBe(manifest.models.stg_fx__rates?.rows);
    // market status counts an export asked for through the collector like a scheduled one.
    const exportedRows = Object.values(manifest.models).reduce((sum, m) => sum + m.rows, 0);
    expect(collector.status().find((s) => s.name === 'export')?.landed).toBeGreaterThanOrEqual(
      exportedBefore + exportedRows,
    );
  });

  it('refuses an export into another folder than its own, with a way out', async () => {
    const to = join(dir, 'elsewhere');
    const result = await runMarket(['export', '--warehouse', warehouse, '--to', to]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^market: the running collector exports only into .*scheduled-exports/);
    expect(result.stderr).toMatch(/stop the collector to export elsewhere/);
    expect(existsSync(to)).toBe(false);
  });

  it('answers bad input through the collector with exit code 2 and writes nothing', async () => {
    const to = join(scheduled(), 'refused-by-collector');
    const unknown = await runMarket(['export', '--warehouse', warehouse, '--to', to, '--models', 'fct_nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^market: no model is named fct_nope/);
    const modelsDirGiven = await runMarket([
      'export',
      '--warehouse',
      warehouse,
      '--to',
      to,
      '--models-dir',
      dir,
    ]);
    expect(modelsDirGiven.code).toBe(2);
    expect(modelsDirGiven.stderr).toMatch(/is running on .* with the models of .*, not /);
    expect(existsSync(to)).toBe(false);
  });
});

describe('market collect --export-cron', () => {
  it('refuses a schedule that is not a cron expression before starting anything', async () => {
    const result = await runMarket([
      'collect',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'svc_pub_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      '--warehouse',
      join(dir, 'never.duckdb'),
      '--export-cron',
      'every hour',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /invalid option exportCron: give a cron expression, e\.g\. "0 \* \* \* \*"/,
    );
    expect(existsSync(join(dir, 'never.duckdb'))).toBe(false);
  });
});

describe('export progress on stderr', () => {
  it('rewrites one line on a terminal and clears it at the end', () => {
    let written = '';
    const stream = { isTTY: true, write: (s: string) => (written += s) } as unknown as NodeJS.WriteStream;
    const printer = createProgressPrinter(stream);
    printer.update({ model: 'fct_x', day: '2026-11-01', daysDone: 1, daysTotal: 2, rows: 10 });
    printer.update({ model: 'fct_x', day: '2026-11-02', daysDone: 2, daysTotal: 2, rows: 25 });
    printer.end();
    expect(written).toBe(
      '\rexporting fct_x 2026-11-01 (1/2 days, 10 rows)\x1b[K' +
        '\rexporting fct_x 2026-11-02 (2/2 days, 25 rows)\x1b[K' +
        '\r\x1b[K',
    );
  });
});
