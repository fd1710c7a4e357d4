/**
 * A model kept in the file with an `order_by:` line (`fct_listing_lifecycle`) has its table
 * rewritten in that order at each lake move, the rows its increments appended since included, and
 * the same rows after.
 */
import { expect, it } from 'vitest';
import { useClockedWarehouse } from '../clocked-warehouse.js';
import { newEvent, T0 } from '../fixtures.js';

const MINUTE = 60_000;

const t = useClockedWarehouse(T0);

/** The lifecycle's groups in the order its table stores them. */
async function storedNames(): Promise<string[]> {
  const rows = await t.warehouse.query('SELECT market_hash_name FROM fct_listing_lifecycle ORDER BY rowid');
  return rows.map((r) => String(r.market_hash_name));
}

async function land(at: number, names: string[]): Promise<void> {
  t.clock.now = at;
  const events = names.map((name, i) =>
    newEvent(`s-${at}-${i}`, `l-${at}-${i}`, at, { market_hash_name: name, price_usd: 5 + i }),
  );
  await t.warehouse.write([{ source: 'stream', events }]);
  t.clock.now = at + MINUTE;
  await t.warehouse.refreshModels({ select: ['fct_listing_lifecycle'] });
}

/** `count` group names, `first` and on in steps of 7 (mod 100). */
function names(first: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `Item ${String((first + i * 7) % 100).padStart(2, '0')}`);
}

it('stores the lifecycle in group order after a move, the rows appended since included', async () => {
  await land(T0, names(3, 12));
  await land(T0 + 10 * MINUTE, names(5, 12));
  const before = await storedNames();
  expect(before).toHaveLength(24);
  // Built and appended in the orders the builds give (24 rows: not sorted by chance).
  expect(before).not.toEqual([...before].sort());
  const rows = await t.warehouse.query('SELECT * FROM fct_listing_lifecycle ORDER BY listing_id');

  t.clock.now = T0 + 20 * MINUTE;
  await t.warehouse.moveToLake(T0);
  expect(await storedNames()).toEqual([...before].sort());
  expect(await t.warehouse.query('SELECT * FROM fct_listing_lifecycle ORDER BY listing_id')).toEqual(rows);
});
