/**
 * int_listing_spells when rows of a listing share their instant: sightings by several passes
 * started in the same millisecond (a poll, a sweep, a catch-up), a departure found then too. Their
 * order must be total: the windows that number a listing's stays and spells sort its rows more
 * than once, and rows that tie could come out in another order each time (a sighting numbered
 * before the first start, a spell 0 that marks the next one `after_departure`). A full build, in
 * chunks, equals an incremental build of the same landings, whatever order they landed in.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, observation, T0 } from './fixtures.js';

/** Listings of each scenario: enough that rows of one instant sort apart in some of them. */
const LISTINGS = 600;
const SECOND = 1000;
const ids = Array.from({ length: LISTINGS }, (_, i) => `t${i}`);

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

/** Lands `batch` with the warehouse clock at `at` (epoch ms), the time it is ingested. */
async function landAt(at: number, batch: WarehouseBatch) {
  clock.now = at;
  await warehouse.write([batch]);
}

/** A pass (`via`, `passId`) that saw every listing at `at`, asking `ask(i)` for the i-th. */
const pass = (via: 'poll' | 'sweep' | 'catch_up', passId: string, at: number, ask: (i: number) => number) =>
  ({
    source: via === 'poll' ? 'poll:730' : `${via}:730`,
    observations: ids.map((id, i) => observation(id, at, passId, { price_usd: ask(i) }, via)),
  }) satisfies WarehouseBatch;

const spells = () => warehouse.query('SELECT * FROM int_listing_spells ORDER BY ALL');

/** Builds incrementally after each landing of `batches`, then in full; returns both results. */
async function incrementallyThenFull(batches: WarehouseBatch[]) {
  await warehouse.refreshModels({ select: ['int_listing_spells'] });
  for (const batch of batches) {
    await landAt(clock.now + SECOND, batch);
    clock.now += SECOND;
    await warehouse.refreshModels({ select: ['int_listing_spells'] });
  }
  const incremental = await spells();
  await warehouse.refreshModels({ select: ['int_listing_spells'], fullRefresh: true });
  const failed = (await warehouse.testModels({ select: ['int_listing_spells'] })).filter(
    (r) => r.failures > 0,
  );
  expect(failed).toEqual([]);
  return { incremental, full: await spells() };
}

it('numbers sightings of one instant by a poll and a sweep as one spell, never after a departure', async () => {
  const seen = T0 + 10 * SECOND;
  const { incremental, full } = await incrementallyThenFull([
    pass('poll', 'p1', seen, () => 10),
    pass('sweep', 's1', seen, () => 10),
  ]);
  expect(full).toEqual(incremental);
  expect(full).toHaveLength(LISTINGS);
  expect(full.filter((r) => r.spell !== 1 || r.stay !== 1 || r.after_departure)).toEqual([]);
});

it('orders sightings of one instant after a departure by their pass, in a build of any size', async () => {
  const [listed, left, back] = [T0 + 10 * SECOND, T0 + 20 * SECOND, T0 + 30 * SECOND];
  const events = ids.flatMap((id, i) => [
    newEvent(`log-${2 * i + 1}`, id, listed, { price_usd: 10 }),
    goneEvent(`log-${2 * i + 2}`, id, left),
  ]);
  // Back on the market: a sweep and a catch-up see it in the same millisecond, the sweep landing
  // first; every other listing's ask changed between the two (the sweep saw the newer one). A
  // poll and a sweep that found it gone see the last listing at one instant too.
  const { incremental, full } = await incrementallyThenFull([
    { source: 'stream', events },
    pass('sweep', 's1', back, (i) => (i % 2 ? 11 : 10)),
    pass('catch_up', 'c1', back, () => 10),
    {
      source: 'sweep:730',
      gone: [{ appId: 730, listingId: 'last', detectedAt: back, via: 'sweep' }],
      observations: [observation('last', back, 'p1', {}, 'poll')],
    },
  ]);
  expect(full).toEqual(incremental);
  const summary = (id: string) =>
    full
      .filter((r) => r.listing_id === id)
      .map((r) => [r.spell, r.stay, r.after_departure, Number(r.ask_usd), r.ended_at === null]);
  expect(summary('t0')).toEqual([
    [1, 1, false, 10, false],
    [2, 2, true, 10, true],
  ]);
  // The catch-up's sighting orders first (`catch_up:c1` before `sweep:s1`): ask 10, then 11.
  expect(summary('t1')).toEqual([
    [1, 1, false, 10, false],
    [2, 2, true, 10, false],
    [3, 2, false, 11, true],
  ]);
  // A sighting comes before a departure of the same instant: it was the last one.
  expect(summary('last')).toEqual([[1, 1, false, 12.34, false]]);
});
