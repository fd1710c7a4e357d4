/**
 * `int_listing_spells` refreshed from each touched listing's last spell: a listing whose last spell
 * is still open and ended before every row landed since (or whose last sighting is read again) goes
 * on from that spell (its history is not read again), a listing never seen before reads what landed
 * since, any other is numbered again from its whole history; either way the increment equals a full
 * rebuild, through random landings of sightings, departures, late rows and ties of one instant.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, modelRows, newEvent, observation, random } from './fixtures.js';

const MODELS = ['int_listing_spells', 'fct_listing_lifecycle'];
const NOON = Date.UTC(2026, 10, 1, 12);

let cleanup: () => void;
let warehouse: Warehouse;
const clock = { now: NOON };
let events = 0;
beforeAll(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  warehouse = await Warehouse.open(join(temp.dir, 'w.duckdb'), { clock: () => clock.now });
});
afterAll(async () => {
  await warehouse.close();
  cleanup();
});

/** Lands `batches` when the clock reads `landedAt` (their rows' `ingested_at`). */
async function land(landedAt: number, ...batches: WarehouseBatch[]): Promise<void> {
  clock.now = landedAt;
  await warehouse.write(batches);
}

/** Refreshes the spells (and what they read) at `builtAt`; returns the rows the spells' increment wrote. */
async function refresh(builtAt: number): Promise<number | null> {
  clock.now = builtAt;
  const run = await warehouse.refreshModels({ select: MODELS });
  const spells = run.models.find((m) => m.model === 'int_listing_spells');
  expect(spells?.mode).toBe('incremental');
  return spells?.rows ?? null;
}

/** The models built incrementally, then rebuilt in full: they must be equal. */
async function expectEqualToFullBuild(): Promise<void> {
  const incremental = await modelRows(warehouse, MODELS);
  await warehouse.refreshModels({ select: MODELS, fullRefresh: true });
  expect(incremental).toEqual(await modelRows(warehouse, MODELS));
}

const stream = (listing: string, at: number, overrides: Partial<Listing> = {}): WarehouseBatch => ({
  source: 'stream',
  events: [newEvent(`log-${++events}`, listing, at, overrides)],
});
const gone = (listing: string, at: number): WarehouseBatch => ({
  source: 'stream',
  events: [goneEvent(`log-${++events}`, listing, at)],
});
const poll = (
  listing: string,
  at: number,
  pass: string,
  overrides: Partial<Listing> = {},
): WarehouseBatch => ({
  source: 'poll:730',
  observations: [observation(listing, at, pass, overrides)],
});
/** An FX landing: it moves the build's watermark past the landings before it, touching no listing. */
const rates = (): WarehouseBatch => ({
  source: 'fx',
  fx: { updatedAt: clock.now, fetchedAt: clock.now, rates: { EUR: 0.9 } },
});

describe('the spells refreshed from each listing last spell', () => {
  it('writes again only the open last spell of a listing seen again at its ask', async () => {
    // Three asks: three spells of one stay, the last still open.
    await land(NOON + 1_000, stream('k', NOON, { price_usd: 10 }));
    await land(NOON + 61_000, stream('k', NOON + 60_000, { price_usd: 12 }));
    await land(NOON + 121_000, stream('k', NOON + 120_000, { price_usd: 14 }), rates());
    await land(NOON + 125_000, rates());
    clock.now = NOON + 130_000;
    await warehouse.refreshModels({ select: MODELS });
    await land(NOON + 181_000, poll('k', NOON + 180_000, 'p1', { price_usd: 14 }));
    await land(NOON + 185_000, rates());
    expect(await refresh(NOON + 190_000)).toBe(1);
    const spells = await warehouse.query(
      "SELECT spell, stay, strftime(last_seen_at, '%H:%M') AS last, ended_at FROM int_listing_spells ORDER BY spell",
    );
    expect(spells).toEqual([
      { spell: 1, stay: 1, last: '12:00', ended_at: expect.anything() },
      { spell: 2, stay: 1, last: '12:01', ended_at: expect.anything() },
      { spell: 3, stay: 1, last: '12:03', ended_at: null },
    ]);
    await expectEqualToFullBuild();
  });

  it('goes on from the last spell when the build before read up to the load landing its last sighting', async () => {
    // The watermark is the load of the last sighting: the next increment reads that load again.
    const at = NOON + 1_800_000;
    await land(at + 1_000, stream('m', at, { price_usd: 10 }));
    await land(at + 61_000, stream('m', at + 60_000, { price_usd: 12 }));
    await land(at + 121_000, stream('m', at + 120_000, { price_usd: 14 }));
    clock.now = at + 130_000;
    await warehouse.refreshModels({ select: MODELS });
    await land(at + 181_000, poll('m', at + 180_000, 'p9', { price_usd: 14 }));
    expect(await refresh(at + 190_000)).toBe(1);
    const [last] = await warehouse.query(
      "SELECT spell, last_sighting_id FROM int_listing_spells WHERE listing_id = 'm' ORDER BY spell DESC LIMIT 1",
    );
    expect(last).toEqual({ spell: 3, last_sighting_id: 'poll:p9' });
    await expectEqualToFullBuild();
  });

  it('equals a full rebuild through random sightings, departures, late rows and ties', async () => {
    const next = random(45);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const listings = ['r1', 'r2', 'r3', 'r4'];
    const asks = [20, 20, 20, 25, null];
    let t = NOON + 3_600_000;
    let passes = 0;
    for (let step = 0; step < 10; step++) {
      const batches: WarehouseBatch[] = [];
      for (let n = 1 + Math.floor(next() * 3); n > 0; n--) {
        const listing = pick(listings);
        // Mostly now; sometimes late (before rows landed already), sometimes at the instant of another row.
        const roll = next();
        const at = roll < 0.2 ? t - 30_000 - Math.floor(next() * 60_000) : roll < 0.35 ? t - 10_000 : t;
        const ask = pick(asks);
        const kind = next();
        if (kind < 0.4) batches.push(stream(listing, at, { price_usd: ask as number }));
        else if (kind < 0.75) batches.push(poll(listing, at, `p${++passes}`, { price_usd: ask as number }));
        else batches.push(gone(listing, at));
      }
      await land(t + 2_000, ...batches);
      if (next() < 0.5) await land(t + 3_000, rates());
      await refresh(t + 5_000);
      if (step === 4) await expectEqualToFullBuild();
      t += 20_000;
    }
    await expectEqualToFullBuild();
  });
});
