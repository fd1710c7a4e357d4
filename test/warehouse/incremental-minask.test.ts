/**
 * The project's minAsk models built incrementally between landings equal a full rebuild of the
 * same data, also when a spell both starts and ends after a build, or a late sighting moves its
 * start to an earlier minute.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, observation, T0 } from './fixtures.js';

const MODELS = ['int_listing_spells', 'int_live_minask_changes', 'fct_minask_history'];

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
async function landAt(at: number, batch: Parameters<Warehouse['write']>[0][number]) {
  clock.now = at;
  await warehouse.write([batch]);
}

/** The rows of the models, without the watermark an incremental build leaves on the rows it kept. */
async function contents(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const model of MODELS)
    out[model] = await warehouse.query(
      `SELECT COLUMNS(c -> c <> 'built_watermark') FROM ${model} ORDER BY ALL`,
    );
  return out;
}

/** Builds incrementally, then in full, and returns both results. */
async function incrementalThenFull() {
  clock.now += 1000;
  const incremental = await warehouse.refreshModels({ select: MODELS });
  const modes = incremental.models.filter((m) => MODELS.includes(m.model)).map((m) => m.mode);
  expect(modes).toEqual(['incremental', 'incremental', 'incremental']);
  const afterIncrement = await contents();
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  return { afterIncrement, afterFull: await contents() };
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
