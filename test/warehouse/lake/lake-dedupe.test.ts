/**
 * A stream event already in the lake never lands twice: replayed after its day moved (a resume
 * from an old position, a recording sent again), it is found in the lake's files of the days its
 * position's range names, and an event never landed below the watermark (a gap) still lands.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect, it } from 'vitest';
import type { StreamEventRow } from '../../../src/warehouse/index.js';
import { Warehouse } from '../../../src/warehouse/index.js';
import { useClockedWarehouse } from '../clocked-warehouse.js';
import { newEvent, T0 } from '../fixtures.js';
import { DAY, dayBatches, landDays } from './lake-fixture.js';

const t = useClockedWarehouse(T0);

/** The stream's batches of days 0-2 of the lake fixture. */
function streamBatches() {
  return [0, 1, 2].flatMap((d) => dayBatches(t.dir, T0, d).filter((b) => b.batch.source === 'stream'));
}

/** Writes `events` as one stream batch at `at`. */
async function writeEvents(at: number, events: StreamEventRow[]): Promise<void> {
  t.clock.now = at;
  await t.warehouse.write([{ source: 'stream', events }]);
}

/** How many times each event id is read across the file and the lake, for the ids read more than once or in `ids`. */
async function eventCounts(ids: string[]): Promise<Record<string, number>> {
  const rows = await t.warehouse.query(
    `SELECT event_id, count(*)::INTEGER AS n FROM raw_listing_events
     WHERE event_id IN (${ids.map((id) => `'${id}'`).join(', ') || 'NULL'}) OR event_id IN (
       SELECT event_id FROM raw_listing_events GROUP BY ALL HAVING count(*) > 1)
     GROUP BY ALL ORDER BY event_id`,
  );
  return Object.fromEntries(rows.map((r) => [String(r.event_id), Number(r.n)]));
}

it('lands an event moved to the lake once, whether replayed by position or by an opaque id', async () => {
  // Ids of a log with a gap (g-3, g-4 never sent), one without a position and one with a leading zero.
  const odd = (at: number) => [
    newEvent('g-1', 'G1', at),
    newEvent('g-2', 'G2', at),
    newEvent('g-5', 'G5', at),
    newEvent('opaque', 'O1', at),
    newEvent('z-007', 'Z7', at),
  ];
  await writeEvents(T0 + 1000, odd(T0 + 1000));
  await landDays(t.warehouse, t.clock, t.dir, 3);
  const [{ n: landed } = { n: 0 }] = await t.warehouse.query(
    'SELECT count(*)::INTEGER AS n FROM raw_listing_events',
  );
  t.clock.now = T0 + 3 * DAY;
  const moved = await t.warehouse.moveToLake(T0 + 2 * DAY);
  expect(moved.relations.raw_listing_events?.rows).toBe(13);
  expect(await t.warehouse.query('SELECT * FROM lake_event_ranges ORDER BY log, day')).toEqual([
    { log: 'e0-', day: '2026-11-01', lo: 1, hi: 4 },
    { log: 'e1-', day: '2026-11-02', lo: 1, hi: 4 },
    { log: 'g-', day: '2026-11-01', lo: 1, hi: 5 },
  ]);

  // Every event sent again, the moved days' and the day still in the file: nothing lands.
  for (const { batch } of streamBatches()) await t.warehouse.write([batch]);
  await writeEvents(T0 + 3 * DAY, odd(T0 + 3 * DAY));
  expect(await eventCounts([])).toEqual({});
  expect(await t.warehouse.query('SELECT count(*)::INTEGER AS n FROM raw_listing_events')).toEqual([
    { n: landed },
  ]);

  // Below the watermark but never landed: a gap of the log, an id whose digits differ from a moved one's.
  await writeEvents(T0 + 3 * DAY, [
    newEvent('g-3', 'G3', T0 + 3 * DAY),
    newEvent('z-7', 'Z7b', T0 + 3 * DAY),
  ]);
  expect(await eventCounts(['g-3', 'z-7'])).toEqual({ 'g-3': 1, 'z-7': 1 });

  // A second move adds the ranges of its days; a reopen keeps them.
  t.clock.now = T0 + 3 * DAY + 1000;
  await t.warehouse.moveToLake(t.clock.now);
  await t.warehouse.close();
  t.warehouse = await Warehouse.open(join(t.dir, 'w.duckdb'), { clock: () => t.clock.now });
  expect(
    await t.warehouse.query(
      "SELECT * FROM lake_event_ranges WHERE log IN ('g-', 'e2-', 'z-') ORDER BY log, day",
    ),
  ).toEqual([
    { log: 'e2-', day: '2026-11-03', lo: 1, hi: 4 },
    { log: 'g-', day: '2026-11-01', lo: 1, hi: 5 },
    { log: 'g-', day: '2026-11-04', lo: 3, hi: 3 },
    { log: 'z-', day: '2026-11-04', lo: 7, hi: 7 },
  ]);
  await writeEvents(T0 + 3 * DAY, [...odd(T0 + 3 * DAY), newEvent('g-3', 'G3', T0 + 3 * DAY)]);
  for (const { batch } of streamBatches()) await t.warehouse.write([batch]);
  expect(await eventCounts([])).toEqual({});

  // A file that moved events before the ranges were kept reads its lake's event files once on open.
  const ranges = await t.warehouse.query('SELECT * FROM lake_event_ranges ORDER BY log, day');
  await t.warehouse.close();
  const older = await (await DuckDBInstance.create(join(t.dir, 'w.duckdb'))).connect();
  await older.run(`DELETE FROM lake_event_ranges;
    CREATE TABLE lake_event_ranges_pending AS SELECT path FROM lake_files WHERE relation = 'raw_listing_events'`);
  older.closeSync();
  t.warehouse = await Warehouse.open(join(t.dir, 'w.duckdb'), { clock: () => t.clock.now });
  expect(await t.warehouse.query('SELECT * FROM lake_event_ranges ORDER BY log, day')).toEqual(ranges);
  expect(
    await t.warehouse.query(
      "SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'lake_event_ranges_pending'",
    ),
  ).toEqual([{ n: 0 }]);
}, 120_000);
