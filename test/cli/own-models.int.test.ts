/**
 * The analyst's own models folder through the real `market` command: `models init` copies the
 * shipped models, `models run` and `models test` read the folder given by `--models` or
 * `MARKET_MODELS`, and `collect --models` builds it while a different folder is refused.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlFileOf } from '../../src/collector/control/protocol.js';
import { projectPath } from '../../src/shared/project-root.js';
import { runMarket, spawnCollector } from '../helpers/cli.js';

/** A model of the analyst's alone, with a test that fails on a warehouse without FX rates. */
const OWN_MODEL = [
  '-- FX updates landed per currency: a model of the analyst alone.',
  '-- materialized: table',
  '-- test: row_count(> 0)',
  'SELECT currency, count(*) AS updates FROM fx_rates GROUP BY currency',
].join('\n');

const SHIPPED = readdirSync(projectPath('sql', 'models'))
  .filter((n) => n.endsWith('.sql'))
  .sort();

let dir: string;
let mine: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-own-models-'));
  mine = join(dir, 'my-models');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('market models init', () => {
  it('copies the shipped models into a new folder, then leaves a folder of models as it is', async () => {
    const first = await runMarket(['models', 'init', mine]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^copied ${SHIPPED.length} models into `));
    expect(
      readdirSync(mine)
        .filter((n) => n.endsWith('.sql'))
        .sort(),
    ).toEqual(SHIPPED);
    expect(readFileSync(join(mine, 'stg_fx_rates.sql'), 'utf8')).toBe(
      readFileSync(projectPath('sql', 'models', 'stg_fx_rates.sql'), 'utf8'),
    );

    // The analyst's recipe: a column added to a shipped model, and a model of their own.
    const stg = join(mine, 'stg_fx_rates.sql');
    const shipped = readFileSync(stg, 'utf8');
    writeFileSync(
      stg,
      shipped
        .replace('ingested_at\nFROM fx_rates', 'ingested_at, 1 AS mine\nFROM fx_rates')
        .replace(/TIMESTAMP '1970-01-01'\s*$/, "TIMESTAMP '1970-01-01', 1\n"),
    );
    writeFileSync(join(mine, 'fct_fx_updates.sql'), OWN_MODEL);

    const again = await runMarket(['models', 'init', mine]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already holds models: left as is, nothing copied/);
    expect(again.stdout).toMatch(/changed from the shipped ones: stg_fx_rates\.sql\n/);
    expect(readFileSync(stg, 'utf8')).toMatch(/1 AS mine/);
  });

  it('refuses a folder holding other files, and writes nothing there', async () => {
    const other = join(dir, 'notes');
    await mkdir(other);
    writeFileSync(join(other, 'todo.txt'), 'mine');
    const result = await runMarket(['models', 'init', other]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/notes holds files but no model \(\.sql\)/);
    expect(readdirSync(other)).toEqual(['todo.txt']);
  });
});

describe('models run and models test on the own folder', () => {
  const warehouse = () => join(dir, 'own.duckdb');

  it('builds the folder given by --models, not the shipped one', async () => {
    const run = await runMarket(['models', 'run', '--models', mine, '--warehouse', warehouse()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fct_fx_updates/);
    expect(run.stdout).toMatch(new RegExp(`built ${SHIPPED.length + 1} models`));
    const column = await runMarket([
      'sql',
      "SELECT mine FROM stg_fx_rates WHERE currency = 'USD'",
      '--format',
      'json',
      '--warehouse',
      warehouse(),
    ]);
    expect(column.code).toBe(0);
    expect(JSON.parse(column.stdout)).toEqual([{ mine: 1 }]);
  });

  it("runs the folder's tests with MARKET_MODELS", async () => {
    const tested = await runMarket(
      ['models', 'test', '--warehouse', warehouse(), '--select', 'fct_fx_updates'],
      {
        MARKET_MODELS: mine,
      },
    );
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(/^FAIL\s+1? *fct_fx_updates: row_count/m);
  });

  it.each([
    [
      'reads a model it does not declare',
      '',
      'reads the model base but does not declare it: add base to its depends_on line',
    ],
    [
      'declares a model it does not read',
      '-- depends_on: base\n',
      'declares base in depends_on but its SQL does not read it: remove base from the line',
    ],
  ])('refuses a model that %s, naming the model, its file and the relation', async (_, header, why) => {
    const folder = join(dir, `wrong-${header ? 'unread' : 'undeclared'}`);
    await mkdir(folder);
    writeFileSync(join(folder, 'base.sql'), '-- materialized: table\nSELECT 1 AS x');
    const body = header ? 'SELECT 2 AS x' : 'SELECT x FROM base';
    writeFileSync(join(folder, 'reader.sql'), `-- materialized: table\n${header}${body}`);
    const file = join(dir, `${header ? 'unread' : 'undeclared'}.duckdb`);
    const result = await runMarket(['models', 'run', '--models', folder, '--warehouse', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`market: model reader (${join(folder, 'reader.sql')}): ${why}\n`);
    const built = await runMarket([
      'sql',
      'SELECT count(*)::INT AS n FROM model_runs',
      '--format',
      'json',
      '--warehouse',
      file,
    ]);
    expect(JSON.parse(built.stdout)).toEqual([{ n: 0 }]);
  });

  it('refuses a folder that does not exist, naming the way to make one', async () => {
    const missing = join(dir, 'none');
    const result = await runMarket(['models', 'run', '--models', missing, '--warehouse', warehouse()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no models folder .*none: make one .* market models init/);
  });
});

describe('market collect --models', () => {
  let collector: ChildProcess | null = null;
  const warehouse = () => join(dir, 'collected.duckdb');

  afterAll(async () => {
    if (collector && collector.exitCode === null) {
      collector.kill('SIGTERM');
      await once(collector, 'exit');
    }
  });

  it('builds its own folder through the collector, and refuses another one', async () => {
    // No API answers on port 9: the sources retry, and the control endpoint serves the models.
    collector = spawnCollector(
      'http://127.0.0.1:9/v1',
      `svc_pub_${'a'.repeat(12)}_${'b'.repeat(32)}`,
      warehouse(),
      ['--models', mine, '--control-port', '0', '--models-cron', 'off'],
    );
    await expect.poll(() => existsSync(controlFileOf(warehouse())), { timeout: 30_000 }).toBe(true);
    const other = await runMarket([
      'models',
      'run',
      '--warehouse',
      warehouse(),
      '--models',
      projectPath('sql', 'models'),
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /a collector is running on .* with the models of .*my-models, not .*sql\/models/,
    );
    const same = await runMarket(
      ['models', 'run', '--warehouse', warehouse(), '--select', 'fct_fx_updates'],
      {
        MARKET_MODELS: mine,
      },
    );
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/fct_fx_updates/);
  });
});
