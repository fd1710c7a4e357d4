/**
 * The minAsk models' increments read the history from a bound near the changed minute on, not all
 * of it: a group's collector figures before the changed minute come from its stored runs
 * (`int_minask_spells`), and the latest landing of listings before it from the day before it
 * (`int_minask_minutes`, beyond it only when that day has none). Shown by removing a group's
 * changes of the day before once built: the next increment still carries its listing that went live
 * then, and equals a full rebuild; a group without a run of late still finds its own changes.
 */
import { expect, it } from 'vitest';
import type { WarehouseBatch } from '../../src/warehouse/index.js';
import { useClockedWarehouse } from './clocked-warehouse.js';
import { modelRows, newEvent, priceRow, snapshotBatch, T0 } from './fixtures.js';

const MINUTE = 60_000;
const MODELS = ['int_live_minask_changes', 'int_minask_minutes', 'int_minask_spells'];
/** Day 1 is the day before T0 (midnight of day 2). */
const DAY_1 = T0 - 14 * 60 * MINUTE;

const t = useClockedWarehouse(DAY_1);

async function landAt(at: number, batch: WarehouseBatch): Promise<void> {
  t.clock.now = at;
  await t.warehouse.write([batch]);
}

async function refreshAt(at: number): Promise<void> {
  t.clock.now = at;
  await t.warehouse.refreshModels({ select: MODELS });
}

it('carries a group\u2019s collector figures from its stored runs, or its changes when it has none of late', async () => {
  const ak = priceRow('AK', 1.5, 3);
  const m4 = priceRow('M4', 7, 2);
  // Day 1, 10:00: a listing of AK and one of M4 go live (live changes), then a list lists both.
  await landAt(DAY_1, {
    source: 'stream',
    events: [
      newEvent('s-1', 'l-1', DAY_1, { market_hash_name: 'AK', price_usd: 5 }),
      newEvent('s-2', 'l-2', DAY_1, { market_hash_name: 'M4', price_usd: 9 }),
    ],
  });
  await landAt(DAY_1 + MINUTE, snapshotBatch(t.dir, 'v1', DAY_1 + MINUTE, [ak, m4]));
  await refreshAt(DAY_1 + 2 * MINUTE);
  // Day 2, 00:05: the next list, without M4.
  await landAt(T0 + 5 * MINUTE, snapshotBatch(t.dir, 'v2', T0 + 5 * MINUTE, [ak]));
  await refreshAt(T0 + 6 * MINUTE);
  // AK's changes before day 2 are no longer read: they go.
  await t.warehouse.query(
    `DELETE FROM int_live_minask_changes WHERE market_hash_name = 'AK' AND minute < TIMESTAMP '2026-11-01'`,
  );
  // 00:10: a list of both again; both listings of day 1 are still live. M4 has no run on day 2
  // before it: its figures come from its changes.
  await landAt(T0 + 10 * MINUTE, snapshotBatch(t.dir, 'v3', T0 + 10 * MINUTE, [ak, m4]));
  await refreshAt(T0 + 11 * MINUTE);

  const rows = await t.warehouse.query(
    `SELECT market_hash_name, live_min_ask_usd, live_listed_count, service_min_ask_usd FROM int_minask_spells
     WHERE TIMESTAMP '2026-11-01 00:10:00' BETWEEN minute AND last_minute ORDER BY market_hash_name`,
  );
  expect(rows).toEqual([
    { market_hash_name: 'AK', live_min_ask_usd: 5, live_listed_count: 1, service_min_ask_usd: 1.5 },
    { market_hash_name: 'M4', live_min_ask_usd: 9, live_listed_count: 1, service_min_ask_usd: 7 },
  ]);
  const [minute] = await t.warehouse.query(
    `SELECT CAST(live_as_of AS VARCHAR) AS live_as_of FROM int_minask_minutes
     WHERE app_id = 730 AND minute = TIMESTAMP '2026-11-01 00:10:00'`,
  );
  // The latest landing of listings was the day before: found beyond the day the look-up reads first.
  expect(minute?.live_as_of).toBe('2026-10-31 10:00:00');

  // The increments equal a full rebuild (which reads the whole history again).
  const incremental = await modelRows(t.warehouse, ['int_minask_spells', 'int_minask_minutes']);
  t.clock.now += 1_000;
  await t.warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  expect(await modelRows(t.warehouse, ['int_minask_spells', 'int_minask_minutes'])).toEqual(incremental);
});
