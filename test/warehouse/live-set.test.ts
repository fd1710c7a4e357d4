import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GoneRow, newestListedSql, Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import {
  goneEvent,
  makeListing,
  makeTempDir,
  newEvent,
  observation,
  random,
  rawNewEvents,
  T0,
} from './fixtures.js';

let warehouse: Warehouse;
let temp: string;
let cleanup: () => void;

beforeEach(async () => {
  const made = makeTempDir();
  temp = made.dir;
  cleanup = made.cleanup;
  warehouse = await Warehouse.open(join(temp, 'wh.duckdb'));
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

const LIVE = 'SELECT * FROM live_listings ORDER BY listing_id';

/** The live set as the whole history says, computed from no state at all (then rolled back). */
async function liveFromHistory(): Promise<Record<string, unknown>[]> {
  return warehouse.withConnection(async (connection) => {
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run('DELETE FROM live_set_state');
      await connection.run('UPDATE live_set_horizon SET pruned_before = NULL');
      await connection.run('DELETE FROM live_set_pending');
      await connection.run('INSERT INTO live_set_pending SELECT load_id, started_at FROM loads');
      const reader = await connection.runAndReadAll(LIVE);
      return reader.getRowObjectsJson() as Record<string, unknown>[];
    } finally {
      await connection.run('ROLLBACK');
    }
  });
}

async function live(): Promise<Record<string, unknown>[]> {
  return warehouse.withConnection(async (connection) => {
    const reader = await connection.runAndReadAll(LIVE);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  });
}

async function pendingLoads(): Promise<number> {
  const [row] = await warehouse.query('SELECT count(*) AS n FROM live_set_pending');
  return Number(row?.n);
}

function verdict(listingId: string, at: number, via: GoneRow['via'] = 'sweep'): GoneRow {
  return { appId: 730, listingId, detectedAt: at, via };
}

describe('live_listings over the live set state', () => {
  it('keeps first_seen_at exact when a departure landing late falls inside a stay', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('s-1', 'A', T0)] }]);
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 100, 'p1')] }]);
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 200, 'p2')] }]);
    await warehouse.applyLanded();
    expect(await pendingLoads()).toBe(0);
    // A sweep's verdict reached at T0 + 50 lands only now: the stay starts with the first sighting after it.
    await warehouse.write([{ source: 'sweep:730', gone: [verdict('A', T0 + 50)] }]);
    const merged = await live();
    expect(merged.map((r) => [r.listing_id, r.first_seen_at, r.last_seen_at, r.last_event_id])).toEqual([
      ['A', '2026-11-01 00:00:00.1', '2026-11-01 00:00:00.2', null],
    ]);
    await warehouse.applyLanded();
    expect(await pendingLoads()).toBe(0);
    expect(await live()).toEqual(merged);
    expect(await liveFromHistory()).toEqual(merged);
  });

  it('keeps a departure landed after a later sighting from hiding it, and an older sighting from reviving it', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('s-1', 'B', T0 + 100)] }]);
    await warehouse.applyLanded();
    await warehouse.write([{ source: 'stream', events: [goneEvent('s-2', 'B', T0 + 50)] }]);
    expect((await live()).map((r) => r.listing_id)).toEqual(['B']);
    await warehouse.applyLanded();
    await warehouse.write([{ source: 'stream', events: [goneEvent('s-3', 'B', T0 + 150)] }]);
    await warehouse.applyLanded();
    await warehouse.write([{ source: 'poll:730', observations: [observation('B', T0 + 120, 'p1')] }]);
    expect(await live()).toEqual([]);
    await warehouse.applyLanded();
    expect(await live()).toEqual([]);
  });

  it('types a winning repeat from the state, and from its stored row after a stream event changed the listing', async () => {
    const ask = async () => (await live()).map((r) => [r.listing_id, r.price_usd, r.last_event_id]);
    const sweep = (passId: string, at: number, price: number) =>
      warehouse.write([
        { source: 'sweep:730', observations: [observation('A', at, passId, { price_usd: price }, 'sweep')] },
      ]);
    await sweep('pass-1', T0 + 100, 10);
    await warehouse.applyLanded();
    // A repeat of the winner's text: its fields come from the state, which keeps that text's md5.
    await sweep('pass-2', T0 + 200, 10);
    const [repeats] = await warehouse.query('SELECT count(*) AS n FROM raw_listing_repeats');
    expect(Number(repeats?.n)).toBe(1);
    await warehouse.applyLanded();
    const [state] = await warehouse.query(
      'SELECT pass_id, winner_md5 IS NOT NULL AS kept FROM live_set_state',
    );
    expect(state).toEqual({ pass_id: 'pass-2', kept: true });
    expect(await ask()).toEqual([['A', '10.00', null]]);
    // A stream event changes the ask; the next sweep sees the first text again (a repeat of pass-1's
    // row), whose fields the state no longer holds: they are looked up in the history.
    await warehouse.write([
      { source: 'stream', events: [newEvent('s-1', 'A', T0 + 300, { price_usd: 20 })] },
    ]);
    await warehouse.applyLanded();
    expect(await ask()).toEqual([['A', '20.00', 's-1']]);
    await sweep('pass-3', T0 + 400, 10);
    expect(await ask()).toEqual([['A', '10.00', 's-1']]);
    await warehouse.applyLanded();
    expect(await ask()).toEqual([['A', '10.00', 's-1']]);
    expect(await live()).toEqual(await liveFromHistory());
  });

  it('applies past payloads that do not parse or carry no string id, the live set, marks and counts from the rest', async () => {
    // Landed as sent: cut short (B, both gones), an id that is not a string (C), a listed_at that is
    // no timestamp (D), no object at all. The apply reads each payload after landing and must pass them.
    const listing = (id: string, overrides: Record<string, unknown>) =>
      JSON.stringify({ ...makeListing(id), ...overrides });
    await warehouse.write([
      {
        source: 'stream',
        events: [
          ...rawNewEvents([
            listing('A', { listed_at: '2026-10-31T10:00:00.000Z' }),
            listing('B', { listed_at: '2026-10-31T12:00:00.000Z' }).slice(0, 60),
            listing('C', { id: 7, listed_at: '2026-10-31T08:00:00.000Z' }),
            listing('D', { listed_at: 1_785_000_000_000 }),
            '[1, 2]',
            'null',
          ]),
          { eventId: 'log-7', kind: 'gone', appId: 730, receivedAt: T0 + 10, data: '{"id":' },
          { eventId: 'log-8', kind: 'gone', appId: 730, receivedAt: T0 + 10, data: '{"id":"A"' },
        ],
      },
    ]);
    const newest = async () => (await warehouse.query(newestListedSql(730)))[0]?.at;
    const merged = await live();
    expect(await newest()).toBe(Date.parse('2026-10-31T10:00:00.000Z'));
    await warehouse.applyLanded();
    expect(await pendingLoads()).toBe(0);
    expect(merged.map((r) => r.listing_id)).toEqual(['A', 'D']);
    expect(await live()).toEqual(merged);
    expect(await liveFromHistory()).toEqual(merged);
    expect(await newest()).toBe(Date.parse('2026-10-31T10:00:00.000Z'));
    expect(await warehouse.query('SELECT payloads, rejected, partly_typed FROM payload_checks')).toEqual([
      { payloads: 8, rejected: 6, partly_typed: 1 },
    ]);
  });

  it('equals the live set from the whole history when page items repeat stream events, known from the state or looked up', async () => {
    const next = random(44);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const ids = ['A', 'B'];
    /** Each listing's ask in its last event: most items see it, so they repeat the event. */
    const asks = new Map<string, number>();
    let position = 0;
    let at = T0;
    for (let step = 0; step < 24; step++) {
      at += 10;
      const id = pick(ids);
      let batch: WarehouseBatch;
      if (next() < 0.4 || !asks.has(id)) {
        asks.set(id, ++position);
        batch = { source: 'stream', events: [newEvent(`s-${position}`, id, at, { price_usd: position })] };
      } else {
        const price = next() < 0.8 ? (asks.get(id) ?? 0) : 1000;
        batch = {
          source: 'poll:730',
          observations: [observation(id, at, `pass-${step}`, { price_usd: price })],
        };
      }
      await warehouse.write([batch]);
      if (next() < 0.6) await warehouse.applyLanded();
      expect(await live(), `after step ${step}`).toEqual(await liveFromHistory());
    }
    const [repeats] = await warehouse.query(
      "SELECT count(*)::INT AS n FROM raw_listing_repeats WHERE same_via = 'stream'",
    );
    expect(repeats?.n).toBeGreaterThan(3);
  }, 120_000);

  it('equals the live set computed from the whole history after any sequence of landings and refreshes', async () => {
    await landRandomly(7);
  }, 180_000);

  it('drops a departure behind the horizon from the state, and a sighting landing older than it looks it up', async () => {
    await warehouse.close();
    warehouse = await Warehouse.open(join(temp, 'short-horizon.duckdb'), { departedKeptMs: 20 });
    const ids = async () =>
      (
        await warehouse.query(
          'SELECT listing_id, epoch_ms(first_seen_at) AS at FROM live_listings ORDER BY 1',
        )
      ).map((r) => [r.listing_id, Number(r.at)]);
    await warehouse.write([{ source: 'stream', events: [newEvent('s-1', 'A', T0 + 100)] }]);
    await warehouse.applyLanded();
    // A leaves; B, seen much later, raises the horizon past A's departure: A's row goes.
    await warehouse.write([
      { source: 'stream', events: [goneEvent('s-2', 'A', T0 + 200), newEvent('s-3', 'B', T0 + 1000)] },
    ]);
    await warehouse.applyLanded();
    const state = await warehouse.query('SELECT listing_id FROM live_set_state ORDER BY listing_id');
    expect(state).toEqual([{ listing_id: 'B' }]);
    const [horizon] = await warehouse.query('SELECT epoch_ms(pruned_before) AS at FROM live_set_horizon');
    expect(Number(horizon?.at)).toBe(T0 + 980);
    // A page item of A read before it left lands now: it must not revive A, pending or applied.
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 150, 'p1')] }]);
    expect(await ids()).toEqual([['B', T0 + 1000]]);
    await warehouse.applyLanded();
    expect(await ids()).toEqual([['B', T0 + 1000]]);
    // One read after it left, older than the horizon too, starts a stay there.
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 250, 'p2')] }]);
    await warehouse.applyLanded();
    expect(await ids()).toEqual([
      ['A', T0 + 250],
      ['B', T0 + 1000],
    ]);
    expect(await live()).toEqual(await liveFromHistory());
  });

  it("drops a departed listing's payload mark with its state row; its next item is stored whole", async () => {
    await warehouse.close();
    warehouse = await Warehouse.open(join(temp, 'short-horizon.duckdb'), { departedKeptMs: 20 });
    const marks = async () =>
      (await warehouse.query('SELECT listing_id FROM listing_payload_marks ORDER BY 1')).map(
        (r) => r.listing_id,
      );
    const stored = async (id: string) =>
      (
        await warehouse.query(
          `SELECT (SELECT count(*) FROM raw_listing_observations WHERE listing_id = '${id}') AS items,
                  (SELECT count(*) FROM raw_listing_repeats WHERE listing_id = '${id}') AS repeats`,
        )
      )[0];
    await warehouse.write([
      {
        source: 'sweep:730',
        observations: [observation('A', T0 + 100, 's1'), observation('B', T0 + 100, 's1')],
      },
    ]);
    await warehouse.applyLanded();
    expect(await marks()).toEqual(['A', 'B']);
    // A leaves; C, listed much later, raises the horizon past A's departure.
    await warehouse.write([{ source: 'sweep:730', gone: [verdict('A', T0 + 200)] }]);
    await warehouse.write([{ source: 'stream', events: [newEvent('s-1', 'C', T0 + 1000)] }]);
    await warehouse.applyLanded();
    expect(await marks()).toEqual(['B']);
    // B, seen again unchanged, is a repeat of its mark.
    await warehouse.write([{ source: 'sweep:730', observations: [observation('B', T0 + 1001, 's2')] }]);
    expect(await stored('B')).toEqual({ items: 1, repeats: 1 });
    // An item of A read before it left, landing now: stored whole, and gone from the marks again
    // with A's state row once applied.
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 150, 'p1')] }]);
    expect(await stored('A')).toEqual({ items: 2, repeats: 0 });
    await warehouse.applyLanded();
    expect(await marks()).toEqual(['B']);
    expect((await live()).map((r) => r.listing_id)).toEqual(['B', 'C']);
    expect(await live()).toEqual(await liveFromHistory());
  });

  it('equals the live set from the whole history with a horizon so short that most departures are dropped', async () => {
    await warehouse.close();
    warehouse = await Warehouse.open(join(temp, 'short-horizon.duckdb'), { departedKeptMs: 10 });
    // Time moves on 10 ms a step and a happening lands up to 60 ms late, half of the events
    // departures: departures leave the state a step after they are applied, and late sightings
    // precede some of them (without the look-up, this seed's live set differs at step 20).
    await landRandomly(1, (step, next) => T0 + (step + Math.floor(next() * 8) - 6) * 10, 0.5);
    const [horizon] = await warehouse.query('SELECT epoch_ms(pruned_before) AS at FROM live_set_horizon');
    expect(Number(horizon?.at)).toBeGreaterThan(T0 + 200);
  }, 180_000);
});

/** Few distinct instants, so sightings and departures often share one and the tie rules decide. */
const FEW_INSTANTS = (_step: number, next: () => number) => T0 + Math.floor(next() * 12) * 10;

/**
 * Lands 30 random batches of three listings' sightings and departures (stream events, page items,
 * sweep verdicts) at the instants `instant` draws for each step, `newShare` of the stream events
 * `new`, applying the loads now and then, and checks after each that the live set equals the one
 * the whole history gives.
 */
async function landRandomly(seed: number, instant = FEW_INSTANTS, newShare = 0.8): Promise<void> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const ids = ['A', 'B', 'C'];
  let position = 0;
  for (let step = 0; step < 30; step++) {
    const at = () => instant(step, next);
    const batch: WarehouseBatch = { source: pick(['stream', 'poll:730', 'sweep:730']) };
    if (batch.source === 'stream') {
      batch.events = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
        const id = `s-${++position}`;
        return next() < newShare
          ? newEvent(id, pick(ids), at(), { price_usd: position })
          : goneEvent(id, pick(ids), at());
      });
    } else if (next() < 0.8) {
      // Two asks only, so many items repeat their listing's last text (after a stream event too).
      batch.observations = [observation(pick(ids), at(), `pass-${step}`, { price_usd: pick([1000, 1001]) })];
    } else {
      batch.gone = [verdict(pick(ids), at())];
    }
    await warehouse.write([batch]);
    if (next() < 0.4) await warehouse.applyLanded();
    expect(await live(), `after step ${step}`).toEqual(await liveFromHistory());
  }
}
