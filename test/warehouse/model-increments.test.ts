/**
 * The project's listing models built incrementally equal a full rebuild of the same data, when rows
 * land out of the order things happened (a departure that lands after a later one), or a landing
 * after a build ages the minute built last. (incremental-minask.test.ts covers other late rows.)
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StreamEventRow, Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent } from './fixtures.js';

const MODELS = [
  'int_listing_spells',
  'fct_listing_lifecycle',
  'int_live_minask_changes',
  'int_minask_minutes',
  'int_minask_spells',
  'fct_minask_history',
];
/** 2026-11-01 12:00:00 UTC: the minutes of the scenarios count from it. */
const NOON = Date.UTC(2026, 10, 1, 12);
const at = (minute: number, second = 0) => NOON + minute * 60_000 + second * 1000;

let dir: string;
let cleanup: () => void;
let warehouse: Warehouse;
const clock = { now: NOON };
let events = 0;
beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
});
afterEach(async () => {
  await warehouse.close();
  cleanup();
});

/** Lands `batch` when the clock reads `landedAt` (epoch ms): its rows' `ingested_at`. */
async function land(landedAt: number, batch: WarehouseBatch): Promise<void> {
  clock.now = landedAt;
  await warehouse.write([batch]);
}

/** A stream batch of one event. */
const stream = (event: StreamEventRow): WarehouseBatch => ({ source: 'stream', events: [event] });
const nextId = () => `log-${++events}`;
/** An FX landing: it moves the watermark without touching a listing. */
const rates = (): WarehouseBatch => ({
  source: 'fx',
  fx: { updatedAt: clock.now, fetchedAt: clock.now, rates: { EUR: 0.9 } },
});

/** The models' rows, without the build's watermark (rows kept by an increment carry an older one). */
async function readModels(): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const model of MODELS) {
    const columns = model.includes('_listing_') ? '*' : '* EXCLUDE (built_watermark)';
    rows[model] = await warehouse.query(`SELECT ${columns} FROM ${model} ORDER BY ALL`);
  }
  return rows;
}

/** Refreshes incrementally at `builtAt`, then checks a full rebuild of the same data leaves the same rows. */
async function expectIncrementEqualsFullBuild(builtAt: number): Promise<Record<string, unknown[]>> {
  clock.now = builtAt;
  const increment = await warehouse.refreshModels();
  expect(increment.models.filter((m) => MODELS.includes(m.model)).map((m) => m.mode)).toEqual(
    // fct_minask_history is a view over the two tables before it.
    MODELS.map((m) => (m === 'fct_minask_history' ? 'view' : 'incremental')),
  );
  const incremental = await readModels();
  await warehouse.refreshModels({ fullRefresh: true });
  expect(incremental).toEqual(await readModels());
  const failed = (await warehouse.testModels({ select: MODELS })).filter((r) => r.failures > 0);
  expect(failed).toEqual([]);
  return incremental;
}

/** The live side of fct_minask_history for one item name, minute by minute. */
async function liveHistory(name: string) {
  return warehouse.query(
    `SELECT strftime(minute, '%H:%M') AS minute, live_listed_count AS listed
     FROM fct_minask_history WHERE market_hash_name = '${name}' ORDER BY minute`,
  );
}

describe('incremental builds of the listing models', () => {
  it('move a listing departure earlier when a departure that happened first lands last', async () => {
    await land(at(0, 5), stream(newEvent(nextId(), 'c', at(0, 5), { market_hash_name: 'Karambit' })));
    // A sweep misses the listing in minute 14, before the stream's word of it leaving lands.
    await land(at(14, 5), {
      source: 'sweep:730',
      gone: [{ appId: 730, listingId: 'c', detectedAt: at(14), via: 'sweep' }],
    });
    // A later load moves the build's watermark past the sweep's landing, which is not read again.
    await land(at(14, 10), rates());
    clock.now = at(14, 30);
    await warehouse.refreshModels();
    expect(await liveHistory('Karambit')).toEqual([
      { minute: '12:00', listed: 1 },
      { minute: '12:14', listed: 0 },
    ]);
    // The gone event of minute 11 lands late (a catch-up): the listing left then, not in minute 14.
    await land(at(15), stream(goneEvent(nextId(), 'c', at(11))));
    await expectIncrementEqualsFullBuild(at(15, 30));
    expect(await liveHistory('Karambit')).toEqual([
      { minute: '12:00', listed: 1 },
      { minute: '12:11', listed: 0 },
    ]);
  });

  it('age the minute built last by the landings after its build', async () => {
    await land(at(4, 15), stream(newEvent(nextId(), 'd', at(4, 10))));
    await land(at(4, 20), rates());
    clock.now = at(4, 50);
    await warehouse.refreshModels();
    // A poll pass that found nothing new lands later in minute 4, then a listing appears in minute 6.
    await land(at(4, 55), { source: 'poll:730', observations: [] });
    await land(at(6, 5), stream(newEvent(nextId(), 'e', at(6, 2))));
    const rows = await expectIncrementEqualsFullBuild(at(6, 30));
    expect(rows.fct_minask_history?.[0]).toMatchObject({
      minute: expect.stringMatching(/12:04:00/),
      live_listed_count: 1,
      live_age_seconds: 5,
    });
  });
});
