import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { type GoneRow, type ObservationRow, Warehouse } from '../../src/warehouse/index.js';
import { goneEvent, makeListing, makeTempDir, newEvent, observation, pageItem, T0 } from './fixtures.js';

let warehouse: Warehouse;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  warehouse = await Warehouse.open(join(temp.dir, 'wh.duckdb'));
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

async function live() {
  return warehouse.query(
    'SELECT listing_id, price_usd, first_seen_at, last_seen_at, last_event_id, source FROM live_listings ORDER BY listing_id',
  );
}

async function count(table: string): Promise<number> {
  const [row] = await warehouse.query(`SELECT count(*) AS n FROM ${table}`);
  return row?.n as number;
}

function gone(listingId: string, at: number, via: GoneRow['via'] = 'sweep'): GoneRow {
  return { appId: 730, listingId, detectedAt: at, via };
}

describe('Warehouse.write: observations', () => {
  it('does not revive a listing whose gone event landed after the observation was stamped', async () => {
    await warehouse.write([
      { source: 'stream', events: [newEvent('e1', 'A', T0), goneEvent('e2', 'A', T0 + 50)] },
    ]);
    await warehouse.write([
      { source: 'sweep:730', observations: [observation('A', T0 + 20, 's1', {}, 'sweep')] },
    ]);
    expect(await live()).toEqual([]);
    expect(await count('listing_observations')).toBe(1);
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 60, 'p1')] }]);
    expect((await live()).map((r) => r.listing_id)).toEqual(['A']);
  });

  it('does not revive a listing a sweep found gone after the observation was stamped', async () => {
    await warehouse.write([{ source: 'poll:730', observations: [observation('B', T0, 'p1')] }]);
    await warehouse.write([{ source: 'sweep:730', gone: [gone('B', T0 + 100)] }]);
    await warehouse.write([{ source: 'poll:730', observations: [observation('B', T0 + 50, 'p2')] }]);
    expect(await live()).toEqual([]);
  });

  it('inserts an unseen listing with first and last seen at the observation time', async () => {
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 10, 'w1')] }]);
    expect(await live()).toEqual([
      {
        listing_id: 'A',
        price_usd: 12.34,
        first_seen_at: '2026-11-01T00:00:00.010Z',
        last_seen_at: '2026-11-01T00:00:00.010Z',
        last_event_id: null,
        source: 'poll:730',
      },
    ]);
    const [row] = await warehouse.query('SELECT * EXCLUDE (load_id, ingested_at) FROM listing_observations');
    expect(row).toMatchObject({
      app_id: 730,
      listing_id: 'A',
      price_usd: 12.34,
      tradable_at: '2026-11-08T09:30:00.000Z',
      observed_at: '2026-11-01T00:00:00.010Z',
      via: 'poll',
      pass_id: 'w1',
    });
  });

  it('updates fields and last_seen_at of a live listing, keeping first_seen_at and last_event_id', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0 + 1)] }]);
    await warehouse.write([
      { source: 'sweep:730', observations: [observation('A', T0 + 20, 's1', { price_usd: 3 }, 'sweep')] },
    ]);
    expect(await live()).toEqual([
      {
        listing_id: 'A',
        price_usd: 3,
        first_seen_at: '2026-11-01T00:00:00.001Z',
        last_seen_at: '2026-11-01T00:00:00.020Z',
        last_event_id: 'e1',
        source: 'sweep:730',
      },
    ]);
  });

  it('does not roll a listing back to an observation older than its last sighting', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0 + 50, { price_usd: 7 })] }]);
    await warehouse.write([
      { source: 'poll:730', observations: [observation('A', T0 + 40, 'w1', { price_usd: 6 })] },
    ]);
    expect((await live())[0]).toMatchObject({ price_usd: 7, last_seen_at: '2026-11-01T00:00:00.050Z' });
    expect(await count('listing_observations')).toBe(1);
  });

  it('lands a listing once per (via, pass_id) and again for another pass', async () => {
    await warehouse.write([
      {
        source: 'poll:730',
        observations: [
          observation('A', T0 + 1, 'w1'),
          observation('A', T0 + 2, 'w1'),
          observation('A', T0 + 3, 'w2'),
        ],
      },
    ]);
    await warehouse.write([
      { source: 'sweep:730', observations: [observation('A', T0 + 4, 'w1', {}, 'sweep')] },
    ]);
    const rows = await warehouse.query(
      'SELECT via, pass_id, observed_at FROM listing_observations ORDER BY observed_at',
    );
    expect(rows).toEqual([
      { via: 'poll', pass_id: 'w1', observed_at: '2026-11-01T00:00:00.001Z' },
      { via: 'poll', pass_id: 'w2', observed_at: '2026-11-01T00:00:00.003Z' },
      { via: 'sweep', pass_id: 'w1', observed_at: '2026-11-01T00:00:00.004Z' },
    ]);
  });

  it('adds nothing when the same batch is written twice, even after the listing went', async () => {
    const batch = {
      source: 'poll:730',
      observations: [observation('A', T0 + 1, 'w1'), observation('B', T0 + 1, 'w1')],
    };
    await warehouse.write([batch]);
    await warehouse.write([{ source: 'stream', events: [goneEvent('e9', 'A', T0 + 5)] }]);
    const replay = await warehouse.write([batch]);
    expect(replay.rows).toBe(0);
    expect(await count('listing_observations')).toBe(2);
    expect((await live()).map((r) => r.listing_id)).toEqual(['B']);
  });
});

describe('Warehouse.write: page items as the page held them', () => {
  /** The counts of `source`, once what landed is applied (the batch writer does it after each write). */
  const checks = async (source: string) => {
    await warehouse.applyLanded();
    return warehouse.query(
      `SELECT payloads, rejected, partly_typed FROM payload_checks WHERE source = '${source}'`,
    );
  };

  it('lands an item whose fields do not match the contract, typed leniently with a note per field', async () => {
    const spoiled = {
      price_usd: '12.34',
      paint_seed: 'seed',
      category: undefined,
    } as unknown as Partial<Listing>;
    const summary = await warehouse.write([
      {
        source: 'poll:730',
        observations: [observation('A', T0 + 1, 'w1', spoiled), observation('B', T0 + 1, 'w1')],
      },
    ]);
    expect(summary.rows).toBe(2);
    expect(
      await warehouse.query(
        'SELECT listing_id, price_usd, paint_seed, category, market_hash_name FROM listing_observations ORDER BY 1',
      ),
    ).toEqual([
      {
        listing_id: 'A',
        price_usd: null,
        paint_seed: null,
        category: null,
        market_hash_name: 'AK-47 | Redline (Field-Tested)',
      },
      {
        listing_id: 'B',
        price_usd: 12.34,
        paint_seed: 412,
        category: 'Rifle',
        market_hash_name: 'AK-47 | Redline (Field-Tested)',
      },
    ]);
    const [typed] = await warehouse.query(
      "SELECT page, item, typing_notes FROM listing_observations_typed WHERE listing_id = 'A'",
    );
    expect(typed).toEqual({
      page: 0,
      item: 0,
      typing_notes: [
        { field: 'paint_seed', reason: 'expected an integer, got VARCHAR' },
        { field: 'price_usd', reason: 'expected a number, got VARCHAR' },
        { field: 'category', reason: 'missing' },
      ],
    });
    expect(await warehouse.query('SELECT count(*) AS n FROM payload_checks')).toEqual([{ n: 0 }]);
    expect(await checks('poll')).toEqual([{ payloads: 2, rejected: 0, partly_typed: 1 }]);
    expect((await live()).map((r) => r.listing_id)).toEqual(['A', 'B']);
  });

  it('keeps a field the contract does not name in extra_fields, and counts it for the via', async () => {
    const item = { ...makeListing('A'), seller_rating: 4.5 };
    const row = { ...observation('A', T0, 's1', {}, 'sweep'), data: JSON.stringify(item) };
    await warehouse.write([{ source: 'sweep:570', observations: [row] }]);
    const [typed] = await warehouse.query(
      "SELECT extra_fields->>'seller_rating' AS rating, typing_notes FROM listing_observations_typed",
    );
    expect(typed).toEqual({ rating: '4.5', typing_notes: [] });
    expect(await checks('sweep')).toEqual([{ payloads: 1, rejected: 0, partly_typed: 0 }]);
    expect(
      await warehouse.query("SELECT source, payloads FROM payload_fields WHERE field = 'seller_rating'"),
    ).toEqual([{ source: 'sweep', payloads: 1 }]);
  });

  it('lands an item without an id once per page position, as a rejected payload of its via', async () => {
    const at = (index: number, data: string): ObservationRow => ({
      ...observation('-', T0, 'c1', {}, 'catch_up'),
      page: 3,
      index,
      listingId: null,
      data,
    });
    const batch = {
      source: 'stream',
      observations: [at(0, '{"price_usd":1}'), at(1, 'null'), observation('A', T0, 'c1', {}, 'catch_up')],
    };
    expect((await warehouse.write([batch])).rows).toBe(3);
    expect((await warehouse.write([batch])).rows).toBe(0);
    expect(
      await warehouse.query('SELECT source, event_id, kind, raw, reason FROM rejected_payloads ORDER BY 2'),
    ).toEqual([
      { source: 'catch_up', event_id: 'c1:3:0', kind: null, raw: '{"price_usd":1}', reason: 'no listing id' },
      { source: 'catch_up', event_id: 'c1:3:1', kind: null, raw: 'null', reason: 'not a JSON object' },
    ]);
    expect(await warehouse.query('SELECT listing_id FROM listing_observations')).toEqual([
      { listing_id: 'A' },
    ]);
    expect(await checks('catch_up')).toEqual([{ payloads: 3, rejected: 2, partly_typed: 0 }]);
  });
});

describe('Warehouse.write: gone rows', () => {
  it('deletes a live listing, lands the verdict once, and ignores a listing that is not live', async () => {
    await warehouse.write([{ source: 'poll:730', observations: [observation('A', T0 + 1, 'w1')] }]);
    const batch = { source: 'sweep:730', gone: [gone('A', T0 + 10), gone('Z', T0 + 10)] };
    await warehouse.write([batch]);
    await warehouse.write([batch]);
    expect(await live()).toEqual([]);
    expect(await warehouse.query('SELECT listing_id, detected_at, via FROM listing_gone ORDER BY 1')).toEqual(
      [
        { listing_id: 'A', detected_at: '2026-11-01T00:00:00.010Z', via: 'sweep' },
        { listing_id: 'Z', detected_at: '2026-11-01T00:00:00.010Z', via: 'sweep' },
      ],
    );
  });

  it('keeps a listing seen live after the gone verdict was reached', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0 + 30)] }]);
    await warehouse.write([{ source: 'sweep:730', gone: [gone('A', T0 + 20)] }]);
    expect((await live()).map((r) => r.listing_id)).toEqual(['A']);
  });

  it('applies a batch as events, then observations, then gone rows', async () => {
    await warehouse.write([
      {
        source: 'sweep:730',
        gone: [gone('A', T0 + 10, 'catch_up')],
        observations: [observation('A', T0 + 5, 's1', {}, 'catch_up')],
        events: [newEvent('e1', 'B', T0 + 1)],
      },
    ]);
    expect((await live()).map((r) => r.listing_id)).toEqual(['B']);
  });
});

describe('Warehouse.write: repeated page items', () => {
  it("records an item byte-identical to its listing's last payload as a repeat, and gives back every item as sent", async () => {
    const passes = [
      [pageItem('A', T0, 's1', 'sweep', 10, [0, 0]), pageItem('B', T0, 's1', 'sweep', 20, [0, 1])],
      [
        pageItem('A', T0 + 100, 's2', 'sweep', 10, [0, 0]),
        pageItem('B', T0 + 100, 's2', 'sweep', 21, [0, 1]),
      ],
      [pageItem('B', T0 + 150, 'p1', 'poll', 21, [1, 3]), pageItem('A', T0 + 150, 'p1', 'poll', 10, [1, 4])],
      // In one batch: A changes, then comes back to its first text (stored again: it is not the last).
      [pageItem('A', T0 + 200, 's3', 'sweep', 11, [0, 0]), pageItem('A', T0 + 210, 'p2', 'poll', 10, [0, 0])],
    ];
    for (const observations of passes) await warehouse.write([{ source: 'sweep:730', observations }]);

    expect(await count('raw_listing_observations')).toBe(5);
    expect(await count('raw_listing_repeats')).toBe(3);
    const sent = passes
      .flat()
      .map((o) => ({ via: o.via, pass_id: o.passId, page: o.page, item: o.index, raw: o.data }));
    const read = await warehouse.query(
      'SELECT via, pass_id, page, item, raw FROM listing_observations_typed ORDER BY observed_at, page, item',
    );
    expect(read).toEqual(sent);
    expect(await count('listing_observations')).toBe(8);
    const [a] = await warehouse.query(
      "SELECT price_usd, last_seen_at FROM live_listings WHERE listing_id = 'A'",
    );
    expect(a).toEqual({ price_usd: 10, last_seen_at: new Date(T0 + 210).toISOString() });

    // A replayed pass lands nothing, repeats included.
    const again = await warehouse.write([{ source: 'sweep:730', observations: passes[1] ?? [] }]);
    expect(again.rows).toBe(0);
    expect(await count('raw_listing_repeats')).toBe(3);
  });
});
