/**
 * The project's minAsk models built incrementally between landings equal a full rebuild of the
 * same data, also when a spell both starts and ends after a build, or a late sighting moves its
 * start to an earlier minute; and when rows of a listing share their instant (sightings by passes
 * started in the same millisecond, a departure found then too): int_listing_spells orders them
 * totally, since its windows sort a listing's rows more than once and rows that tie could come
 * out of each in another order (a sighting numbered before the one that started its stay: a spell
 * 0 that marks the next one `after_departure`), differently in a full build, in chunks, and in an
 * incremental one.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, modelRows, newEvent, observation, T0 } from './fixtures.js';

const MODELS = [
  'int_listing_spells',
  'int_live_minask_changes',
  'int_minask_minutes',
  'int_minask_spells',
  'fct_minask_history',
];

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

/** Builds incrementally, then in full, and returns both results. */
async function incrementalThenFull() {
  clock.now += 1000;
  const incremental = await warehouse.refreshModels({ select: MODELS });
  const modes = incremental.models.filter((m) => MODELS.includes(m.model)).map((m) => m.mode);
  // fct_minask_history is a view over the two tables before it.
  expect(modes).toEqual(['incremental', 'incremental', 'incremental', 'incremental', 'view']);
  const afterIncrement = await modelRows(warehouse, MODELS);
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  return { afterIncrement, afterFull: await modelRows(warehouse, MODELS) };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

it('rebuilds the minute a spell started in when it started and ended after the last build', async () => {
  await landAt(T0 + 10 * SECOND, { source: 'stream', events: [newEvent('s-1', 'a', T0 + 10 * SECOND)] });
  // A later load moves the build's watermark past a's landing, so the next build does not reread a.
  await landAt(T0 + 15 * SECOND, { source: 'fx', fx: { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } } });
  clock.now = T0 + 20 * SECOND;
  await warehouse.refreshModels({ select: MODELS });
  await landAt(T0 + 30 * SECOND, {
    source: 'stream',
    events: [newEvent('s-2', 'b', T0 + 30 * SECOND, { price_usd: 9.5 })],
  });
  await landAt(T0 + 70 * SECOND, { source: 'stream', events: [goneEvent('s-3', 'b', T0 + 70 * SECOND)] });
  const { afterIncrement, afterFull } = await incrementalThenFull();
  expect(afterIncrement).toEqual(afterFull);
  // The minute b was listed in shows it at the end: 9.50 under a's 12.34.
  expect(afterFull.int_live_minask_changes).toContainEqual(
    expect.objectContaining({ minute: new Date(T0).toISOString(), min_ask_usd: 9.5, listed_count: 2 }),
  );
});

it('drops the minute a spell no longer starts in when a late sighting moves its start earlier', async () => {
  await landAt(T0 + 10 * SECOND, { source: 'stream', events: [newEvent('s-1', 'a', T0 + 10 * SECOND)] });
  await landAt(T0 + 2 * MINUTE + 10 * SECOND, {
    source: 'stream',
    events: [newEvent('s-2', 'b', T0 + 2 * MINUTE + 10 * SECOND, { price_usd: 9.5 })],
  });
  clock.now = T0 + 2 * MINUTE + 20 * SECOND;
  await warehouse.refreshModels({ select: MODELS });
  // A poll that saw b in the minute before lands only now.
  await landAt(T0 + 2 * MINUTE + 30 * SECOND, {
    source: 'poll:730',
    observations: [observation('b', T0 + MINUTE + 50 * SECOND, 'p-1', { price_usd: 9.5 })],
  });
  const { afterIncrement, afterFull } = await incrementalThenFull();
  expect(afterIncrement).toEqual(afterFull);
  const minutes = afterFull.int_live_minask_changes?.map((r) => (r as { minute: string }).minute);
  expect(minutes).toEqual([new Date(T0).toISOString(), new Date(T0 + MINUTE).toISOString()]);
});

/** Listings of the scenarios with ties: enough that rows of one instant sort apart in some. */
const LISTINGS = 600;
const ids = Array.from({ length: LISTINGS }, (_, i) => `t${i}`);

/** A pass (`via`, `passId`) that saw every listing at `at`, asking `ask(i)` for the i-th. */
const pass = (via: 'poll' | 'sweep' | 'catch_up', passId: string, at: number, ask: (i: number) => number) =>
  ({
    source: `${via}:730`,
    observations: ids.map((id, i) => observation(id, at, passId, { price_usd: ask(i) }, via)),
  }) satisfies WarehouseBatch;

/** Lands `batches` a second apart, building incrementally after each; then builds in full. */
async function landEachThenFull(batches: WarehouseBatch[]) {
  await warehouse.refreshModels({ select: MODELS });
  for (const batch of batches) {
    await landAt(clock.now + SECOND, batch);
    clock.now += SECOND;
    await warehouse.refreshModels({ select: MODELS });
  }
  const afterIncrement = await modelRows(warehouse, MODELS);
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  const failed = (await warehouse.testModels({ select: ['int_listing_spells'] })).filter(
    (r) => r.failures > 0,
  );
  expect(failed).toEqual([]);
  const afterFull = await modelRows(warehouse, MODELS);
  expect(afterIncrement).toEqual(afterFull);
  return afterFull.int_listing_spells as Record<string, unknown>[];
}

it('numbers sightings of one instant by a poll and a sweep as one spell, never after a departure', async () => {
  const seen = T0 + 10 * SECOND;
  const spells = await landEachThenFull([
    pass('poll', 'p1', seen, () => 10),
    pass('sweep', 's1', seen, () => 10),
  ]);
  expect(spells).toHaveLength(LISTINGS);
  expect(spells.filter((r) => r.spell !== 1 || r.stay !== 1 || r.after_departure)).toEqual([]);
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
  const spells = await landEachThenFull([
    { source: 'stream', events },
    pass('sweep', 's1', back, (i) => (i % 2 ? 11 : 10)),
    pass('catch_up', 'c1', back, () => 10),
    {
      source: 'sweep:730',
      gone: [{ appId: 730, listingId: 'last', detectedAt: back, via: 'sweep' }],
      observations: [observation('last', back, 'p1', {}, 'poll')],
    },
  ]);
  const summary = (id: string) =>
    spells
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
