/**
 * The price lists typed once: `stg_price_lists` and `fct_minask_history` built incrementally
 * between landings equal a full rebuild of the same data, also when a list lands in the very
 * instant of the previous build's watermark (an incremental build reads that instant again) and
 * when a snapshot fetch answers 304 in between, and when a later download of a minute already built
 * no longer lists a group.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { PriceRow } from '../../src/contract/market.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { makeTempDir, modelRows, priceRow, snapshotBatch, T0 } from './fixtures.js';

const MODELS = ['stg_price_lists', 'int_minask_minutes', 'int_minask_spells', 'fct_minask_history'];
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

function minask(appId: number, at: number, rows: readonly PriceRow[]): WarehouseBatch {
  return { source: `prices:${appId}`, minask: { appId, fetchedAt: at, generatedAt: at - 500, rows } };
}

/** Lands `batch` with the warehouse clock at `at`: its rows' `ingested_at` and its load's start. */
async function landAt(at: number, batch: WarehouseBatch) {
  clock.now = at;
  await warehouse.write([batch]);
}

it('types each landed price row once and builds the same tables as a full rebuild', async () => {
  await landAt(T0 + 5_000, snapshotBatch(dir, 'v1', T0 + 5_000, [priceRow('AK', 1.5, 3), priceRow('M4', 7)]));
  await landAt(T0 + 6_000, minask(570, T0 + 6_000, [priceRow('Hook', 0.3)]));
  await warehouse.refreshModels({ select: MODELS });
  const first = await warehouse.query('SELECT count(*) AS n FROM stg_price_lists');
  expect(first).toEqual([{ n: 3 }]);

  // The same instant as the build's watermark (the last load's start): read again, kept once.
  await landAt(T0 + 6_000, minask(730, T0 + 6_000, [priceRow('AK', 1.4)]));
  await landAt(T0 + MINUTE + 1_000, {
    source: 'snapshot',
    snapshot: { status: 'unchanged', etag: '"v1"', fetchedAt: T0 + MINUTE + 1_000 },
  });
  await landAt(
    T0 + 2 * MINUTE + 1_000,
    snapshotBatch(dir, 'v2', T0 + 2 * MINUTE + 1_000, [priceRow('AK', 1.25, 4)]),
  );
  await landAt(
    T0 + 2 * MINUTE + 2_000,
    minask(570, T0 + 2 * MINUTE + 2_000, [priceRow('Hook', 0.35), priceRow('Blade', 2)]),
  );
  clock.now += 1000;
  const incremental = await warehouse.refreshModels({ select: MODELS });
  const built = incremental.models.filter((m) => MODELS.includes(m.model));
  expect(built.map((m) => m.mode)).toEqual(['incremental', 'incremental', 'incremental', 'view']);
  // The list of 570 landed in the watermark's instant is read again (replaced, not added), then 4 new rows.
  expect(built[0]?.rows).toBe(5);
  const afterIncrement = await modelRows(warehouse, MODELS);
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  expect(afterIncrement).toEqual(await modelRows(warehouse, MODELS));
  expect(afterIncrement.stg_price_lists).toHaveLength(7);
  // The snapshot's group AK at minute 2 is the v2 list's row; at minute 1 the 304 kept v1 in force.
  const ak = await warehouse.query(
    `SELECT minute, service_min_ask_usd AS ask, service_listed_count AS n FROM fct_minask_history
     WHERE app_id = 730 AND market_hash_name = 'AK' ORDER BY minute`,
  );
  expect(ak).toEqual([
    { minute: '2026-11-01T00:00:00.000Z', ask: 1.5, n: 3 },
    { minute: '2026-11-01T00:01:00.000Z', ask: 1.5, n: 3 },
    { minute: '2026-11-01T00:02:00.000Z', ask: 1.25, n: 4 },
  ]);
});

it('takes the later download of a minute when it lands after a build of that minute', async () => {
  const models = [...MODELS, 'fct_minask_hourly', 'fct_minask_daily'];
  await landAt(T0 + 5_000, snapshotBatch(dir, 'a', T0 + 5_000, [priceRow('AK', 1.5, 3), priceRow('M4', 7)]));
  clock.now = T0 + 10_000;
  await warehouse.refreshModels({ select: models });
  // A second download in the same minute, with another ask for AK and without M4, lands after that build.
  await landAt(T0 + 40_000, snapshotBatch(dir, 'b', T0 + 40_000, [priceRow('AK', 1.25, 4)]));
  clock.now = T0 + 50_000;
  await warehouse.refreshModels({ select: models });
  const afterIncrement = await modelRows(warehouse, models);
  const service = await warehouse.query(
    `SELECT market_hash_name AS name, minute, service_min_ask_usd AS ask FROM fct_minask_history ORDER BY ALL`,
  );
  expect(service).toEqual([{ name: 'AK', minute: '2026-11-01T00:00:00.000Z', ask: 1.25 }]);
  await warehouse.refreshModels({ select: models, fullRefresh: true });
  expect(afterIncrement).toEqual(await modelRows(warehouse, models));
});
