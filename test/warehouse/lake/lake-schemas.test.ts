/**
 * A relation's whole view reads its lake files of one set of columns by one `read_parquet` without
 * `union_by_name` (which opens every file to bind their union at each read), and files of another
 * set (a column given since some were written) by a read of their own, the column they lack null.
 */
import { beforeAll, expect, it } from 'vitest';
import { useClockedWarehouse } from '../clocked-warehouse.js';
import { T0 } from '../fixtures.js';
import { DAY } from './lake-fixture.js';

const t = useClockedWarehouse(T0);
beforeAll(async () => {
  // An FX answer landed on each of three days.
  for (let d = 0; d < 3; d++) {
    t.clock.now = T0 + d * DAY + 3_600_000;
    await t.warehouse.write([
      { source: 'fx', fx: { updatedAt: t.clock.now, fetchedAt: t.clock.now, rates: { EUR: 0.9 + d / 100 } } },
    ]);
  }
  t.clock.now = T0 + 3 * DAY;
});

async function viewSql(): Promise<string> {
  const [view] = await t.warehouse.query("SELECT sql FROM duckdb_views() WHERE view_name = 'raw_fx_rates'");
  return String(view?.sql);
}

it('reads files of one set of columns in one read, and a column some files lack as null', async () => {
  await t.warehouse.moveToLake(T0 + DAY);
  expect(await viewSql()).toContain('read_parquet');
  expect(await viewSql()).not.toContain('union_by_name');

  // A column given since the first day's file was written.
  await t.warehouse.query('ALTER TABLE raw_fx_rates__hot ADD COLUMN extra INTEGER');
  await t.warehouse.query('UPDATE raw_fx_rates__hot SET extra = 7');
  await t.warehouse.moveToLake(T0 + 2 * DAY);
  const sql = await viewSql();
  expect(sql.match(/read_parquet\(/g)).toHaveLength(2);
  expect(sql).not.toContain('union_by_name');
  expect(
    await t.warehouse.query(
      `SELECT strftime(CAST(ingested_at AS DATE), '%Y-%m-%d') AS day, count(*) AS rows, count(extra) AS filled
       FROM raw_fx_rates GROUP BY ALL ORDER BY day`,
    ),
  ).toEqual([
    { day: '2026-11-01', rows: 1, filled: 0 },
    { day: '2026-11-02', rows: 1, filled: 1 },
    { day: '2026-11-03', rows: 1, filled: 1 },
  ]);
});
