/**
 * Models whose full build runs in parts (`-- chunks: n`, `per day of relation.column`, `per n rows
 * of relation.column`), each keeping its rows with `{{ in_chunk(…) }}`. A row records the statement
 * that built it (`current_query()`), so a test sees which part built it and by what condition.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { parseModel, renderModelSql } from '../../src/warehouse/models/index.js';
import { makeTempDir } from './fixtures.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** A warehouse with the one model `sql` named `name`, and a landing of FX rates a minute later each time. */
async function openWithModel(name: string, sql: string) {
  const folder = join(dir, 'models');
  mkdirSync(folder);
  writeFileSync(join(folder, `${name}.sql`), sql);
  const clock = { now: Date.UTC(2026, 0, 1) };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
    modelsDir: folder,
    clock: () => clock.now,
  });
  const land = async (rates: Record<string, number>) => {
    clock.now += 60_000;
    await warehouse.write([{ source: 'fx', fx: { updatedAt: clock.now, fetchedAt: clock.now, rates } }]);
  };
  return { warehouse, clock, land };
}

/** Each currency's top rate, built in the chunk its hash falls in. */
const TOP_RATES = `-- Top rate per currency.
-- materialized: incremental
-- unique_key: currency
-- chunks: 3
SELECT currency, max(rate) AS top, any_value(current_query()) AS statement
FROM fx_rates
WHERE {{ in_chunk(currency) }}
  AND currency IN (SELECT currency FROM fx_rates WHERE ingested_at >= {{ since }})
GROUP BY currency`;

it('builds a model in chunks in full, and incrementally in one statement', async () => {
  const { warehouse, clock, land } = await openWithModel('top_rates', TOP_RATES);
  await land({ EUR: 0.9, GBP: 0.8, JPY: 150, CHF: 0.88, SEK: 9.5 });
  await warehouse.refreshModels();
  const read = () => warehouse.query('SELECT currency, top FROM top_rates ORDER BY currency');
  expect(await read()).toEqual([
    { currency: 'CHF', top: 0.88 },
    { currency: 'EUR', top: 0.9 },
    { currency: 'GBP', top: 0.8 },
    { currency: 'JPY', top: 150 },
    { currency: 'SEK', top: 9.5 },
  ]);
  // Each row was built by the statement of its own chunk: the third of the hash range it falls in.
  const [chunks] = await warehouse.query(
    `SELECT count(*) FILTER (WHERE NOT hash(currency) BETWEEN CAST(b[1] AS UBIGINT) AND CAST(b[2] AS UBIGINT))::INT AS misplaced,
       count(DISTINCT statement)::INT AS chunks
     FROM (SELECT *, regexp_extract_all(statement, 'CAST\\(''(\\d+)'' AS UBIGINT\\)', 1) AS b FROM top_rates)`,
  );
  // Five currencies in three thirds of the hash range: more than one statement built rows.
  expect(chunks).toEqual({ misplaced: 0, chunks: expect.any(Number) });
  expect((chunks?.chunks as number) > 1).toBe(true);
  // An increment runs once, as chunk 0 of 1.
  await land({ SEK: 10.5, EUR: 0.95 });
  clock.now += 1000;
  const increment = await warehouse.refreshModels();
  expect(increment.models[0]?.mode).toBe('incremental');
  const incremental = await read();
  expect(incremental).toEqual([
    { currency: 'CHF', top: 0.88 },
    { currency: 'EUR', top: 0.95 },
    { currency: 'GBP', top: 0.8 },
    { currency: 'JPY', top: 150 },
    { currency: 'SEK', top: 10.5 },
  ]);
  // Every currency was rebuilt (the first landing is at the watermark, so it is read again), by
  // one statement whose in_chunk is true.
  const statements = await warehouse.query('SELECT DISTINCT statement FROM top_rates');
  expect(statements).toHaveLength(1);
  expect(String(statements[0]?.statement)).not.toMatch(/hash\(/);
  await warehouse.refreshModels({ fullRefresh: true });
  expect(await read()).toEqual(incremental);
  await warehouse.close();
});

/** Each currency's top rate, built in the part whose range of currencies holds it. */
const TOP_RATES_BY_RANGE = `-- Top rate per currency.
-- materialized: incremental
-- unique_key: currency
-- chunks: per 4 rows of fx_rates.currency
SELECT currency, max(rate) AS top, any_value(current_query()) AS statement
FROM fx_rates
WHERE {{ in_chunk(currency) }}
  AND currency IN (SELECT currency FROM fx_rates WHERE ingested_at >= {{ since }})
GROUP BY currency`;

it('builds a model by ranges of a column, as many as its rows need, and incrementally in one statement', async () => {
  const { warehouse, clock, land } = await openWithModel('top_rates', TOP_RATES_BY_RANGE);
  const currencies = ['AUD', 'CAD', 'CHF', 'CNY', 'EUR', 'GBP', 'JPY', 'NOK', 'PLN', 'SEK'];
  await land(Object.fromEntries(currencies.map((c, i) => [c, i + 1])));
  await land(Object.fromEntries(currencies.map((c, i) => [c, i + 0.5])));
  await warehouse.refreshModels();
  const read = () => warehouse.query('SELECT currency, top FROM top_rates ORDER BY currency');
  const full = await read();
  expect(full).toEqual(currencies.map((currency, i) => ({ currency, top: i + 1 })));
  // 20 rows of fx_rates, 4 a part: up to 5 ranges, each a run of currencies in order, none left
  // out, each row within the bounds its statement kept (the first open below, the last above).
  const parts = await warehouse.query(
    `SELECT min(currency) AS first, max(currency) AS last,
       regexp_extract(any_value(statement), 'currency >= CAST\\(''(\\w+)''', 1) AS low,
       regexp_extract(any_value(statement), 'currency < CAST\\(''(\\w+)''', 1) AS high
     FROM top_rates GROUP BY statement ORDER BY first`,
  );
  expect(parts.length).toBeGreaterThan(2);
  expect(parts.length).toBeLessThanOrEqual(5);
  for (const [i, part] of parts.entries()) {
    expect(part.low === '').toBe(i === 0);
    expect(part.high === '').toBe(i === parts.length - 1);
    if (i > 0) expect(String(part.first) >= String(part.low) && part.low === parts[i - 1]?.high).toBe(true);
    if (part.high !== '') expect(String(part.last) < String(part.high)).toBe(true);
  }
  await land({ SEK: 20, AUD: 30 });
  clock.now += 1000;
  const increment = await warehouse.refreshModels();
  expect(increment.models[0]?.mode).toBe('incremental');
  const incremental = await read();
  expect(incremental.find((r) => r.currency === 'AUD')).toEqual({ currency: 'AUD', top: 30 });
  expect(await warehouse.query('SELECT DISTINCT statement FROM top_rates')).toHaveLength(1);
  await warehouse.refreshModels({ fullRefresh: true });
  expect(await read()).toEqual(incremental);
  await warehouse.close();
});

/** Every rate with the lower bound of the statement that built it. */
const RATES_BY_DAY = `-- Every rate landed.
-- materialized: incremental
-- unique_key: currency, fetched_at
-- chunks: per day of raw_fx_rates.ingested_at
SELECT currency, fetched_at, rate, regexp_extract(current_query(), 'ingested_at >= TIMESTAMP ''([^'']+)''', 1) AS built_from
FROM fx_rates
WHERE {{ in_chunk(ingested_at) }}
{% if is_incremental %} AND ingested_at >= {{ since }} {% endif %}`;

it('builds a model by day in full, one statement a day, and incrementally in one statement', async () => {
  const folder = join(dir, 'models');
  mkdirSync(folder);
  writeFileSync(join(folder, 'rates_by_day.sql'), RATES_BY_DAY);
  const clock = { now: Date.UTC(2026, 0, 1, 12) };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), {
    modelsDir: folder,
    clock: () => clock.now,
  });
  const land = async (advanceMs: number, rates: Record<string, number>) => {
    clock.now += advanceMs;
    await warehouse.write([{ source: 'fx', fx: { updatedAt: clock.now, fetchedAt: clock.now, rates } }]);
  };
  const day = 86_400_000;
  await land(0, { EUR: 0.9, GBP: 0.8 });
  await land(day, { EUR: 0.91 });
  await land(2 * day, { EUR: 0.92, JPY: 150 });
  await warehouse.refreshModels();
  const parts = () =>
    warehouse.query(
      'SELECT CAST(fetched_at AS DATE)::VARCHAR AS day, built_from FROM rates_by_day GROUP BY ALL ORDER BY day',
    );
  // The first day is open below, so a row landed before it is not lost; the gap day has no rows.
  expect(await parts()).toEqual([
    { day: '2026-01-01', built_from: '-infinity' },
    { day: '2026-01-02', built_from: '2026-01-02' },
    { day: '2026-01-04', built_from: '2026-01-04' },
  ]);
  await land(day, { GBP: 0.81 });
  clock.now += 1000;
  const increment = await warehouse.refreshModels();
  expect(increment.models[0]?.mode).toBe('incremental');
  const read = () => warehouse.query('SELECT currency, fetched_at, rate FROM rates_by_day ORDER BY ALL');
  const incremental = await read();
  expect(incremental).toHaveLength(6);
  await warehouse.refreshModels({ fullRefresh: true });
  expect(await read()).toEqual(incremental);
  expect((await parts()).at(-1)).toEqual({ day: '2026-01-05', built_from: '2026-01-05' });
  await warehouse.close();
});

it('refuses a chunks line that is not one of its three forms, and chunks of a view', () => {
  const chunks = (line: string, materialized = 'table') =>
    parseModel('t', `-- materialized: ${materialized}\n-- chunks: ${line}\nSELECT 1`).chunks;
  expect(chunks('4')).toEqual({ kind: 'hash', parts: 4 });
  expect(chunks('1')).toEqual({ kind: 'whole' });
  expect(chunks('per day of raw_fx_rates.ingested_at')).toEqual({
    kind: 'days',
    relation: 'raw_fx_rates',
    column: 'ingested_at',
  });
  expect(chunks('per 10 rows of fx_rates.currency')).toEqual({
    kind: 'ranges',
    relation: 'fx_rates',
    column: 'currency',
    rows: 10,
  });
  for (const wrong of [
    '0',
    '2000',
    'per day of ingested_at',
    'fx_rates.currency per 10',
    'per 0 rows of a.b',
  ])
    expect(() => chunks(wrong)).toThrow(
      /model t \(t\.sql\): chunks is n, per day of relation\.column, or per n rows of relation\.column|chunks is a whole number from 1 to 1024/,
    );
  expect(() => chunks('4', 'view')).toThrow(/model t \(t\.sql\): a view is not built in chunks/);
  expect(() => parseModel('t', '-- materialized: table\n-- chunks: 2\n-- chunks: 3\nSELECT 1')).toThrow(
    /chunks is given more than once/,
  );
});

it('refuses the template names of the former chunk headers', () => {
  const model = parseModel('t', '-- materialized: table\n-- chunks: 2\nSELECT {{ chunk }} AS c');
  expect(() => renderModelSql(model, null, '2026-01-01 00:00:00')).toThrow(
    /unknown template \{\{ chunk \}\}/,
  );
});

it('reads an order_by line as columns, and refuses one of a table or that is not a list of columns', () => {
  const header = '-- materialized: incremental\n-- unique_key: t\n';
  const orderBy = (line: string, lake = '-- lake: t\n') =>
    parseModel('t', `${header}${lake}-- order_by: ${line}\nSELECT 1`).orderBy;
  expect(orderBy('app_id, market_hash_name')).toEqual(['app_id', 'market_hash_name']);
  expect(parseModel('t', `${header}SELECT 1`).orderBy).toEqual([]);
  expect(() => orderBy('app_id DESC')).toThrow(/model t \(t\.sql\): order_by lists columns, not app_id DESC/);
  // Without a lake: line, the model's table in the file is kept in that order.
  expect(orderBy('app_id', '')).toEqual(['app_id']);
  expect(() => parseModel('t', '-- materialized: table\n-- order_by: app_id\nSELECT 1')).toThrow(
    /model t \(t\.sql\): order_by is for an incremental model/,
  );
});
