/** The model runner on small models of the tests' own: headers, order, templates, builds, tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { orderModels, parseModel, renderModelSql } from '../../src/warehouse/models/index.js';
import { makeTempDir } from './fixtures.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Writes models (name → file text) into a fresh folder and returns it. */
function modelsDir(files: Record<string, string>): string {
  const folder = join(dir, `models-${Math.random().toString(36).slice(2)}`);
  mkdirSync(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, `${name}.sql`), text);
  return folder;
}

/** Lands one FX rate per currency at `updatedAt` (epoch ms). */
async function landRates(warehouse: Warehouse, updatedAt: number, rates: Record<string, number>) {
  await warehouse.write([{ source: 'fx', fx: { updatedAt, fetchedAt: updatedAt, rates } }]);
}

/** An incremental model stamping its rows with the watermark, and one reading those stamps. */
const STAMPED_MODELS = {
  rates_stamped: `-- materialized: incremental
-- unique_key: currency
SELECT currency, count(*) AS updates, {{ watermark }} AS built_watermark
FROM fx_rates
WHERE currency IN (SELECT currency FROM fx_rates WHERE ingested_at >= {{ since }})
GROUP BY currency`,
  rebuilt_currencies: `-- Currencies whose rates were rebuilt.
-- materialized: incremental
-- depends_on: rates_stamped
-- unique_key: currency
SELECT currency, updates FROM rates_stamped WHERE built_watermark > {{ since }}`,
};

const RATES_BY_CURRENCY = `-- Rate updates per currency.
-- materialized: incremental
-- unique_key: currency
-- test: unique(currency)
-- test: not_null(currency, updates)
SELECT currency, count(*) AS updates, max(rate) AS top
FROM fx_rates
WHERE currency IN (SELECT currency FROM fx_rates WHERE ingested_at >= {{ since }})
GROUP BY currency`;

describe('model files', () => {
  it('reads the header: description, materialization, dependencies, key, export and tests', () => {
    const model = parseModel(
      'fct_x',
      '-- What it is,\n-- on two lines.\n-- materialized: incremental\n-- depends_on: a, b\n-- unique_key: k\n-- export: CAST(t AS DATE)\n-- test: unique(k)\n-- test: not_null(k)\nSELECT 1 AS k;\n',
    );
    expect(model).toMatchObject({
      description: 'What it is, on two lines.',
      materialized: 'incremental',
      dependsOn: ['a', 'b'],
      uniqueKey: ['k'],
      exportDate: 'CAST(t AS DATE)',
      tests: ['unique(k)', 'not_null(k)'],
      sql: 'SELECT 1 AS k',
    });
  });

  it('refuses a bad header, naming the model', () => {
    expect(() => parseModel('m', '-- materialized: matview\nSELECT 1')).toThrow(
      /model m \(m\.sql\): materialized is view/,
    );
    expect(() => parseModel('m', '-- materialized: incremental\nSELECT 1')).toThrow(/needs a unique_key/);
    expect(() =>
      parseModel('m', '-- materialized: incremental\n-- unique_key: k\n-- replace_from: t\nSELECT 1 AS k'),
    ).toThrow(/replace_from t is not a column of the unique_key/);
    expect(() => parseModel('m', '-- materialized: table\n-- delete_when: k IS NULL\nSELECT 1 AS k')).toThrow(
      /delete_when is for an incremental model/,
    );
    expect(() => parseModel('m', '-- materialized: table\n')).toThrow(/no SQL/);
    expect(() => parseModel('Bad-Name', 'SELECT 1')).toThrow(/lower_snake_case/);
    expect(() => parseModel('m', '-- materialized: table\n-- lake: day\nSELECT 1 AS day')).toThrow(
      /model m \(m\.sql\): only an incremental model moves to the lake/,
    );
    expect(() =>
      parseModel(
        'm',
        '-- materialized: incremental\n-- unique_key: k\n-- lake: CAST(t AS DATE)\nSELECT 1 AS k',
      ),
    ).toThrow(/lake is the column dating a row, not CAST/);
    expect(
      parseModel('m', '-- materialized: incremental\n-- unique_key: k\n-- lake: t\nSELECT 1 AS k').lake,
    ).toBe('t');
  });

  it('orders by dependency and refuses unknown, undeclared, unread and circular ones', () => {
    const a = parseModel('a', 'SELECT 1 AS x');
    const b = parseModel('b', '-- depends_on: a\nSELECT x FROM a');
    const c = parseModel('c', '-- depends_on: b\nSELECT x FROM b');
    expect(orderModels([c, b, a]).map((m) => m.name)).toEqual(['a', 'b', 'c']);
    expect(() => orderModels([parseModel('d', '-- depends_on: zz\nSELECT 1')])).toThrow(
      /^model d \(d\.sql\): depends_on names zz, which is not a model of the folder/,
    );
    expect(() => orderModels([a, parseModel('e', 'SELECT x FROM a')])).toThrow(
      /^model e \(e\.sql\): reads the model a but does not declare it: add a to its depends_on line$/,
    );
    expect(() => orderModels([a, parseModel('f', '-- depends_on: a\nSELECT 1 AS x -- not FROM a')])).toThrow(
      /^model f \(f\.sql\): declares a in depends_on but its SQL does not read it: remove a from the line$/,
    );
    // The relation a chunks line splits by is read before the build: it counts as read.
    const g = parseModel(
      'g',
      '-- materialized: table\n-- depends_on: a\n-- chunks: per 10 rows of a.x\nSELECT 1 AS x',
    );
    expect(orderModels([g, a]).map((m) => m.name)).toEqual(['a', 'g']);
    expect(() =>
      orderModels([
        a,
        parseModel('h', '-- materialized: table\n-- chunks: per 10 rows of a.x\nSELECT 1 AS x'),
      ]),
    ).toThrow(/^model h \(h\.sql\): reads the model a but does not declare it/);
    const x = parseModel('x', '-- depends_on: y\nSELECT * FROM y');
    const y = parseModel('y', '-- depends_on: x\nSELECT * FROM x');
    expect(() => orderModels([x, y])).toThrow(/cycle: x → y → x/);
  });

  it('fills in the template for full and incremental builds', () => {
    const model = parseModel(
      'm',
      '-- materialized: incremental\n-- unique_key: k\nSELECT {{ watermark }} AS w FROM {{ this }} {% if is_incremental %}WHERE t >= {{ since }}{% else %}WHERE true{% endif %}',
    );
    expect(renderModelSql(model, null, '2026-01-02 00:00:00')).toBe(
      "SELECT TIMESTAMP '2026-01-02 00:00:00' AS w FROM m WHERE true",
    );
    expect(renderModelSql(model, '2026-01-01 00:00:00', '2026-01-02 00:00:00')).toBe(
      "SELECT TIMESTAMP '2026-01-02 00:00:00' AS w FROM m WHERE t >= TIMESTAMP '2026-01-01 00:00:00'",
    );
    expect(() => renderModelSql(parseModel('n', 'SELECT {{ that }}'), null, 'x')).toThrow(/unknown template/);
  });
});

describe('building models', () => {
  it('builds incrementally from the watermark, replacing rows by key, and equals a full rebuild', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({ rates_by_currency: RATES_BY_CURRENCY }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9, GBP: 0.8 });
    const first = await warehouse.refreshModels();
    expect(first.models[0]).toMatchObject({ mode: 'full', rows: 2 });
    await landRates(warehouse, Date.UTC(2026, 0, 2), { EUR: 0.95 });
    const second = await warehouse.refreshModels();
    // Rows landed at the watermark itself are read again (a write committed later may share its
    // millisecond), so GBP is rebuilt too: 2 rows replaced, not a full rebuild.
    expect(second.models[0]).toMatchObject({ mode: 'incremental', rows: 2 });
    const incremental = await warehouse.query('SELECT * FROM rates_by_currency ORDER BY currency');
    expect(incremental).toEqual([
      { currency: 'EUR', updates: 2, top: 0.95 },
      { currency: 'GBP', updates: 1, top: 0.8 },
    ]);
    await warehouse.refreshModels({ fullRefresh: true });
    expect(await warehouse.query('SELECT * FROM rates_by_currency ORDER BY currency')).toEqual(incremental);
    const runs = await warehouse.query('SELECT mode, rows FROM model_runs ORDER BY started_at, mode');
    expect(runs.map((r) => r.mode)).toEqual(['full', 'incremental', 'full']);
    await warehouse.close();
  });

  it('runs the statements before a model query first, in full and incremental builds', async () => {
    // The currencies touched since the last build set aside, and their count as a constant.
    const touched = `-- Rate updates per currency touched since the last build.
-- materialized: incremental
-- unique_key: currency
CREATE OR REPLACE TEMP TABLE touched_currencies AS
  SELECT DISTINCT currency FROM fx_rates WHERE ingested_at >= {{ since }}; -- a ';' in a comment
SET VARIABLE touched_count = (SELECT count(*) FROM touched_currencies);
SELECT currency, count(*) AS updates, getvariable('touched_count') AS touched, 'a;b' AS text
FROM fx_rates SEMI JOIN touched_currencies USING (currency)
GROUP BY currency`;
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { modelsDir: modelsDir({ touched }) });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9, GBP: 0.8 });
    expect((await warehouse.refreshModels()).models[0]).toMatchObject({ mode: 'full', rows: 2 });
    await landRates(warehouse, Date.UTC(2026, 0, 2), { EUR: 0.95 });
    await landRates(warehouse, Date.UTC(2026, 0, 3), { USD: 1 });
    // The increment reads from the last load the build before read (GBP's and EUR's): all three.
    expect((await warehouse.refreshModels()).models[0]).toMatchObject({ mode: 'incremental', rows: 3 });
    expect(await warehouse.query('SELECT * FROM touched ORDER BY currency')).toEqual([
      { currency: 'EUR', updates: 2, touched: 3, text: 'a;b' },
      { currency: 'GBP', updates: 1, touched: 3, text: 'a;b' },
      { currency: 'USD', updates: 1, touched: 3, text: 'a;b' },
    ]);
    await warehouse.close();
    expect(() => parseModel('v', 'CREATE TEMP TABLE t AS SELECT 1 AS x;\nSELECT x FROM t')).toThrow(
      /model v \(v\.sql\): a view is one query/,
    );
  });

  it('rebuilds a model in full when a model it reads was rebuilt in full after it', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      clock: () => clock.now,
      modelsDir: modelsDir(STAMPED_MODELS),
    });
    await landRates(warehouse, clock.now, { EUR: 0.9, GBP: 0.8 });
    await warehouse.refreshModels();
    const modes = async (options: Parameters<Warehouse['refreshModels']>[0]) => {
      clock.now += 60_000;
      const run = await warehouse.refreshModels(options);
      return Object.fromEntries(run.models.map((m) => [m.model, m.mode]));
    };
    // Nothing new: the upstream's rows carry the watermark the downstream already read.
    expect(await modes({})).toEqual({ rates_stamped: 'incremental', rebuilt_currencies: 'incremental' });
    expect(await warehouse.query('SELECT count(*)::INT AS n FROM rebuilt_currencies')).toEqual([{ n: 2 }]);
    // The upstream alone rebuilt in full at the same watermark: the downstream cannot see what
    // changed, so its next build is a full one.
    expect(await modes({ select: ['rates_stamped'], fullRefresh: true })).toEqual({ rates_stamped: 'full' });
    expect(await modes({})).toEqual({ rates_stamped: 'incremental', rebuilt_currencies: 'full' });
    expect(await modes({})).toEqual({ rates_stamped: 'incremental', rebuilt_currencies: 'incremental' });
    await warehouse.close();
  });

  it('still rebuilds it in full when that rebuild was logged before model_state kept it', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const path = join(dir, 'w.duckdb');
    const options = { clock: () => clock.now, modelsDir: modelsDir(STAMPED_MODELS) };
    const old = await Warehouse.open(path, options);
    await landRates(old, clock.now, { EUR: 0.9, GBP: 0.8 });
    await old.refreshModels();
    clock.now += 60_000;
    await old.refreshModels({ select: ['rates_stamped'], fullRefresh: true });
    // model_state as migration 028 found it: the upstream's full build only in the log.
    await old.withConnection(async (connection) => {
      await connection.run('ALTER TABLE model_state DROP COLUMN last_started_at');
      await connection.run('ALTER TABLE model_state DROP COLUMN full_started_at');
      await connection.run("DELETE FROM schema_migrations WHERE version = '028_model_runs_unindexed.sql'");
    });
    const runs = await old.query('SELECT * FROM model_runs ORDER BY started_at, model');
    await old.close();
    const migrated = await Warehouse.open(path, options);
    try {
      expect(await migrated.query('SELECT * FROM model_runs ORDER BY started_at, model')).toEqual(runs);
      clock.now += 60_000;
      const modes = (await migrated.refreshModels()).models.map((m) => [m.model, m.mode]);
      expect(Object.fromEntries(modes)).toEqual({ rates_stamped: 'incremental', rebuilt_currencies: 'full' });
    } finally {
      await migrated.close();
    }
  });

  it('rebuilds an incremental model in full when its SQL changed, and switches a table to a view', async () => {
    const path = join(dir, 'w.duckdb');
    let warehouse = await Warehouse.open(path, {
      modelsDir: modelsDir({ rates_by_currency: RATES_BY_CURRENCY }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9 });
    await warehouse.refreshModels();
    await warehouse.close();
    const changed = `${RATES_BY_CURRENCY}\nHAVING count(*) > 0`;
    warehouse = await Warehouse.open(path, { modelsDir: modelsDir({ rates_by_currency: changed }) });
    expect((await warehouse.refreshModels()).models[0]?.mode).toBe('full');
    await warehouse.close();
    warehouse = await Warehouse.open(path, {
      modelsDir: modelsDir({ rates_by_currency: 'SELECT currency FROM fx_rates' }),
    });
    expect((await warehouse.refreshModels()).models[0]?.mode).toBe('view');
    const [kind] = await warehouse.query(
      "SELECT table_type FROM information_schema.tables WHERE table_name = 'rates_by_currency'",
    );
    expect(kind?.table_type).toBe('VIEW');
    await warehouse.close();
  });

  it('changes no model when one of the run fails to build', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({
        a_rates: '-- materialized: table\nSELECT currency, rate FROM fx_rates',
        b_broken: '-- materialized: table\n-- depends_on: a_rates\nSELECT no_such_column FROM a_rates',
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9 });
    await expect(warehouse.refreshModels()).rejects.toThrow(
      /building model b_broken failed, no model changed/,
    );
    const tables = await warehouse.query(
      "SELECT table_name FROM information_schema.tables WHERE table_name = 'a_rates'",
    );
    expect(tables).toEqual([]);
    expect(await warehouse.query('SELECT * FROM model_runs')).toEqual([]);
    await warehouse.close();
  });

  it("names a failed full build's own error and sets the steady memory limit back", async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      memoryLimit: '300MB',
      fullBuildMemoryLimit: '200MB',
      modelsDir: modelsDir({
        a_typed: `-- materialized: incremental\n-- unique_key: currency\nSELECT currency, CAST(currency AS INTEGER) AS n FROM fx_rates`,
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9 });
    await expect(warehouse.refreshModels()).rejects.toThrow(
      /building model a_typed failed, no model changed: Conversion Error/,
    );
    const [setting] = await warehouse.query("SELECT current_setting('memory_limit') AS limit");
    expect(setting?.limit).toBe('286.1 MiB');
    await warehouse.close();
  });

  it('interrupts a build in progress when its signal aborts, and changes no model', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({
        a_rates: '-- materialized: table\nSELECT currency, rate FROM fx_rates',
        // Far more work than any test waits for: only an interrupt ends it.
        b_endless:
          '-- materialized: table\nSELECT sum(a.range * b.range) AS s FROM range(1000000) AS a, range(1000000) AS b',
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9 });
    const stopping = new AbortController();
    const building = warehouse.refreshModels({ signal: stopping.signal });
    await new Promise((r) => setTimeout(r, 300));
    stopping.abort();
    await expect(building).rejects.toThrow(/building model b_endless failed, no model changed/);
    expect(
      await warehouse.query("SELECT table_name FROM information_schema.tables WHERE table_name = 'a_rates'"),
    ).toEqual([]);
    expect(await warehouse.query('SELECT * FROM model_runs')).toEqual([]);
    await warehouse.close();
  });

  it('stops at the next model when its signal aborts between two builds, and changes no model', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({
        a_rates: '-- materialized: table\nSELECT currency, rate FROM fx_rates',
        b_rates: '-- materialized: table\nSELECT currency FROM fx_rates',
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9 });
    const stopping = new AbortController();
    // Aborted while no statement runs: the connection's interrupt finds nothing to stop.
    const building = warehouse.refreshModels({
      signal: stopping.signal,
      onModel: (m) => m.model === 'a_rates' && stopping.abort(),
    });
    await expect(building).rejects.toThrow(/building model b_rates failed, no model changed/);
    expect(
      await warehouse.query(
        "SELECT table_name FROM information_schema.tables WHERE table_name IN ('a_rates', 'b_rates')",
      ),
    ).toEqual([]);
    expect(await warehouse.query('SELECT * FROM model_runs')).toEqual([]);
    await warehouse.close();
  });

  it('runs model tests and reports failing ones with the offending rows', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({
        rates: [
          '-- materialized: table',
          '-- test: unique(currency)',
          '-- test: not_null(currency, rate)',
          "-- test: accepted_values(currency: 'EUR')",
          '-- test: expression(rate < 0.85)',
          '-- test: row_count(= SELECT count(*) FROM fx_rates)',
          '-- test: relationships(currency -> fx_rates)',
          'SELECT currency, rate FROM fx_rates',
        ].join('\n'),
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9, GBP: 0.8 });
    await landRates(warehouse, Date.UTC(2026, 0, 2), { EUR: 0.8 });
    await warehouse.refreshModels();
    const results = await warehouse.testModels();
    const failures = Object.fromEntries(results.map((r) => [r.name, r.failures]));
    expect(failures).toEqual({
      'unique(currency)': 1,
      'not_null(currency)': 0,
      'not_null(rate)': 0,
      "accepted_values(currency: 'EUR')": 1,
      'expression(rate < 0.85)': 1,
      'row_count(= SELECT count(*) FROM fx_rates)': 0,
      'relationships(currency -> fx_rates)': 0,
    });
    expect(results.find((r) => r.name === 'expression(rate < 0.85)')?.sample).toEqual([
      { currency: 'EUR', rate: 0.9 },
    ]);
    await warehouse.close();
  });

  it('passes the tests of the project models in a first minute with a price list but no listing landed yet', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'));
    const at = Date.UTC(2026, 0, 1, 12, 0, 59, 900);
    const row = {
      market_hash_name: 'Hydrakan Latch',
      wear: null,
      doppler_phase: null,
      min_ask_usd: 3.42,
      listed_count: 1,
    };
    await warehouse.write([
      { source: 'prices:570', minask: { appId: 570, fetchedAt: at, generatedAt: at, rows: [row] } },
    ]);
    await warehouse.refreshModels();
    expect(await warehouse.query('SELECT live_as_of, live_age_seconds FROM fct_minask_history')).toEqual([
      { live_as_of: null, live_age_seconds: null },
    ]);
    const results = await warehouse.testModels({ select: ['fct_minask_history'] });
    expect(results.filter((r) => r.failures > 0)).toEqual([]);
    await warehouse.close();
  });

  it('compares a model with the data it was built from, never with rows that landed after its build', async () => {
    const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
      modelsDir: modelsDir({
        rates: [
          '-- materialized: table',
          '-- test: unique(currency, rate)',
          '-- test: row_count(= SELECT count(*) FROM fx_rates)',
          '-- test: row_count(= SELECT count(*) + 1 FROM fx_rates)',
          '-- test: relationships(currency, rate -> fx_rates)',
          'SELECT currency, rate FROM fx_rates',
        ].join('\n'),
        rates_view: '-- test: row_count(= SELECT count(*) FROM fx_rates)\nSELECT currency FROM fx_rates',
      }),
    });
    await landRates(warehouse, Date.UTC(2026, 0, 1), { EUR: 0.9, GBP: 0.8 });
    const before = await warehouse.testModels();
    expect(
      before.find((r) => r.model === 'rates' && r.name.startsWith('row_count(= SELECT count(*) FROM')),
    ).toMatchObject({
      failures: 1,
      error: expect.stringMatching(/runs with each build: run `market models run` first/),
    });
    await warehouse.refreshModels();
    // Rows land after the build: the model no longer has as many rows as the landing table.
    await landRates(warehouse, Date.UTC(2026, 0, 2), { EUR: 0.95, USD: 1 });
    const [counts] = await warehouse.query(
      'SELECT (SELECT count(*) FROM rates)::INT AS model, (SELECT count(*) FROM fx_rates)::INT AS landed',
    );
    expect(counts).toEqual({ model: 2, landed: 4 });
    const results = await warehouse.testModels();
    const [built] = await warehouse.query(
      "SELECT CAST(watermark AS VARCHAR) AS w FROM model_state WHERE model = 'rates'",
    );
    expect(results.map(({ name, failures, builtFrom }) => ({ name, failures, builtFrom }))).toEqual([
      { name: 'unique(currency, rate)', failures: 0, builtFrom: undefined },
      { name: 'row_count(= SELECT count(*) FROM fx_rates)', failures: 0, builtFrom: built?.w },
      // A test that failed with its build still fails: its outcome is the one of the build.
      { name: 'row_count(= SELECT count(*) + 1 FROM fx_rates)', failures: 1, builtFrom: built?.w },
      { name: 'relationships(currency, rate -> fx_rates)', failures: 0, builtFrom: built?.w },
      // A view reads the landing data whenever it is queried: its tests run at once.
      { name: 'row_count(= SELECT count(*) FROM fx_rates)', failures: 0, builtFrom: undefined },
    ]);
    expect(results[2]?.sample).toEqual([{ rows: 2, expected: 3 }]);
    // The next build compares again, with what it read.
    await warehouse.refreshModels();
    expect((await warehouse.testModels()).filter((r) => r.failures > 0).map((r) => r.name)).toEqual([
      'row_count(= SELECT count(*) + 1 FROM fx_rates)',
    ]);
    await warehouse.close();
  });
});
