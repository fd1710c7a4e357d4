/**
 * `dim_items` built incrementally writes only the items that are new or whose category or rarity
 * changed (each price list names every item again), and equals a full rebuild of the same data.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PriceRow } from '../../src/contract/market.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { makeTempDir, modelRows, newEvent, T0 } from './fixtures.js';

const MODELS = ['int_listing_spells', 'stg_price_lists', 'dim_items'];
const MINUTE = 60_000;

let dir: string;
let cleanup: () => void;
let clock: { now: number };
let warehouse: Warehouse;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  clock = { now: T0 };
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
});
afterEach(async () => {
  await warehouse.close();
  cleanup();
});

function row(name: string, ask: number): PriceRow {
  return { market_hash_name: name, wear: null, doppler_phase: null, min_ask_usd: ask, listed_count: 1 };
}

function minask(at: number, rows: readonly PriceRow[]): WarehouseBatch {
  return { source: 'prices:570', minask: { appId: 570, fetchedAt: at, generatedAt: at - 500, rows } };
}

/** Lands `batch` with the warehouse clock at `at`, then builds the models one second later. */
async function landAndBuild(at: number, batch: WarehouseBatch): Promise<number | null | undefined> {
  clock.now = at;
  await warehouse.write([batch]);
  clock.now = at + 1000;
  const run = await warehouse.refreshModels({ select: MODELS });
  return run.models.find((m) => m.model === 'dim_items')?.rows;
}

it('writes only new and changed items, and equals a full rebuild', async () => {
  const redline = 'AK-47 | Redline (Field-Tested)';
  expect(await landAndBuild(T0, minask(T0, [row('Hook', 0.3), row('Blade', 2)]))).toBe(2);
  expect(
    await landAndBuild(T0 + 10_000, { source: 'stream', events: [newEvent('s-1', 'a', T0 + 10_000)] }),
  ).toBe(1);
  // The same list again, and another sighting of the same item: nothing to write.
  expect(await landAndBuild(T0 + MINUTE, minask(T0 + MINUTE, [row('Hook', 0.3), row('Blade', 2)]))).toBe(0);
  expect(
    await landAndBuild(T0 + MINUTE + 5_000, {
      source: 'stream',
      events: [newEvent('s-2', 'b', T0 + MINUTE)],
    }),
  ).toBe(0);
  // A new item in a list, and a listing that names the item's rarity anew.
  expect(
    await landAndBuild(T0 + 2 * MINUTE, minask(T0 + 2 * MINUTE, [row('Hook', 0.3), row('Crown', 5)])),
  ).toBe(1);
  expect(
    await landAndBuild(T0 + 3 * MINUTE, {
      source: 'stream',
      events: [newEvent('s-3', 'c', T0 + 3 * MINUTE, { rarity: 'Covert' })],
    }),
  ).toBe(1);
  const incremental = await modelRows(warehouse, ['dim_items']);
  expect(incremental.dim_items).toHaveLength(4);
  expect(await warehouse.query(`SELECT rarity FROM dim_items WHERE market_hash_name = '${redline}'`)).toEqual(
    [{ rarity: 'Covert' }],
  );
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  expect(await modelRows(warehouse, ['dim_items'])).toEqual(incremental);
});
