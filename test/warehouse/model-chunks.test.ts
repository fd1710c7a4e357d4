/** Models whose full build runs in chunks (`-- chunks: n`), by day (`-- chunk_days:`) or by ranges (`-- chunk_by:`). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { parseModel } from '../../src/warehouse/models/index.js';
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
SELECT currency, max(rate) AS top, {{ chunk }} AS chunk
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
    `SELECT count(*) FILTER (WHERE chunk <> (hash(currency)::HUGEINT * 3) // 18446744073709551616)::INT AS misplaced,
       count(DISTINCT chunk)::INT AS chunks FROM top_rates`,
  );
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
  // Every currency was rebuilt (the first landing is at the watermark, so it is read again).
  expect(await warehouse.query('SELECT DISTINCT chunk FROM top_rates')).toEqual([{ chunk: 0 }]);
  await warehouse.refreshModels({ fullRefresh: true });
  expect(await read()).toEqual(incremental);
  await warehouse.close();
});

/** Each currency's top rate, built in the part whose range of currencies holds it. */
const TOP_RATES_BY_RANGE = `-- Top rate per currency.
-- materialized: incremental
-- unique_key: currency
-- chunk_by: fx_rates.currency per 4
SELECT currency, max(rate) AS top, {{ chunk }} AS part
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
  // 20 rows of fx_rates, 4 a part: up to 5 ranges, each a run of currencies in order, none left out.
  const parts = await warehouse.query(
    'SELECT part, min(currency) AS first, max(currency) AS last FROM top_rates GROUP BY part ORDER BY part',
  );
  expect(parts.length).toBeGreaterThan(2);
  expect(parts.length).toBeLessThanOrEqual(5);
  for (const [i, part] of parts.entries()) {
    expect(part.part).toBe(i);
    if (i > 0) expect(String(part.first) > String(parts[i - 1]?.last)).toBe(true);
  }
  await land({ SEK: 20, AUD: 30 });
  clock.now += 1000;
  const increment = await warehouse.refreshModels();
  expect(increment.models[0]?.mode).toBe('incremental');
  const incremental = await read();
  expect(incremental.find((r) => r.currency === 'AUD')).toEqual({ currency: 'AUD', top: 30 });
  expect(await warehouse.query('SELECT DISTINCT part FROM top_rates')).toEqual([{ part: 0 }]);
  await warehouse.refreshModels({ fullRefresh: true });
  expect(await read()).toEqual(incremental);
  await warehouse.close();
});

/** Every rate with the lower bound of the statement that built it. */
const RATES_BY_DAY = `-- Every rate landed.
-- materialized: incremental
-- unique_key: currency, fetched_at
-- chunk_days: raw_fx_rates.ingested_at
SELECT currency, fetched_at, rate, CAST({{ chunk_from }} AS VARCHAR) AS built_from
FROM fx_rates
WHERE ingested_at >= {{ chunk_from }} AND ingested_at < {{ chunk_to }}
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
    { day: '2026-01-02', built_from: '2026-01-02 00:00:00' },
    { day: '2026-01-04', built_from: '2026-01-04 00:00:00' },
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
  expect((await parts()).at(-1)).toEqual({ day: '2026-01-05', built_from: '2026-01-05 00:00:00' });
  await warehouse.close();
});

it('refuses a day column that is not relation.column, and chunks and days together', () => {
  expect(() => parseModel('t', '-- materialized: table\n-- chunk_days: ingested_at\nSELECT 1')).toThrow(
    /chunk_days is relation.column/,
  );
  expect(() =>
    parseModel(
      't',
      '-- materialized: table\n-- chunks: 2\n-- chunk_days: raw_fx_rates.ingested_at\nSELECT 1',
    ),
  ).toThrow(/in chunks or by day, not both/);
});

it('refuses ranges that are not relation.column per rows, of a view, or with chunks', () => {
  expect(() => parseModel('t', '-- materialized: table\n-- chunk_by: fx_rates.currency\nSELECT 1')).toThrow(
    /chunk_by is relation.column per rows/,
  );
  expect(() => parseModel('v', '-- chunk_by: fx_rates.currency per 10\nSELECT 1')).toThrow(
    /a view is not built by ranges/,
  );
  expect(() =>
    parseModel('t', '-- materialized: table\n-- chunks: 2\n-- chunk_by: fx_rates.currency per 10\nSELECT 1'),
  ).toThrow(/in chunks, by day or by ranges, one of them/);
  expect(
    parseModel('t', '-- materialized: table\n-- chunk_by: fx_rates.currency per 10\nSELECT 1').chunkBy,
  ).toEqual({
    relation: 'fx_rates',
    column: 'currency',
    rows: 10,
  });
});

it('refuses chunks of a view, and a number of chunks that is not a whole one', () => {
  expect(() => parseModel('v', '-- chunks: 4\nSELECT 1')).toThrow(/model v: a view is not built in chunks/);
  expect(() => parseModel('t', '-- materialized: table\n-- chunks: 0\nSELECT 1')).toThrow(
    /chunks is a whole number/,
  );
});
