import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, T0 } from './fixtures.js';

let warehouse: Warehouse;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  warehouse = await Warehouse.open(join(temp.dir, 'wh.duckdb'), { clock: () => T0 + 1_000_000 });
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

describe('Warehouse.write: stream events', () => {
  it('lands every listing field with money as DECIMAL(18,2) and times as UTC timestamps', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0 + 5, { price_usd: 0.29 })] }]);
    const [row] = await warehouse.query('SELECT * EXCLUDE (load_id) FROM listing_events');
    expect(row).toEqual({
      event_id: 'e1',
      kind: 'new',
      listing_id: 'A',
      app_id: 730,
      market_hash_name: 'AK-47 | Redline (Field-Tested)',
      wear: 'Field-Tested',
      doppler_phase: null,
      float_value: 0.1834,
      paint_seed: 412,
      stickers: [
        { name: 'Sticker | Crown (Foil)', image: 'https://cdn.example/crown.png', slot: 1, wear: 0.25 },
      ],
      price_usd: 0.29,
      category: 'Rifle',
      rarity: 'Classified',
      image: 'https://cdn.example/ak.png',
      inspect_link: 'steam://rungame/730/inspect',
      tradable: false,
      tradable_at: '2026-11-08T09:30:00.000Z',
      delivery: 'hold',
      refund_percent: 50,
      listed_at: '2026-10-31T23:59:59.123Z',
      received_at: '2026-11-01T00:00:00.005Z',
      ingested_at: '2026-11-01T00:16:40.000Z',
    });
    const [types] = await warehouse.query(
      'SELECT typeof(price_usd) AS price, typeof(received_at) AS received FROM listing_events',
    );
    expect(types).toEqual({ price: 'DECIMAL(18,2)', received: 'TIMESTAMP' });
  });

  it('upserts live_listings on new (keeping first_seen_at) and deletes on gone', async () => {
    await warehouse.write([
      { source: 'stream', events: [newEvent('e1', 'A', T0 + 1), newEvent('e2', 'B', T0 + 2)] },
    ]);
    await warehouse.write([
      {
        source: 'stream',
        events: [newEvent('e3', 'A', T0 + 3, { price_usd: 9.99 }), goneEvent('e4', 'B', T0 + 4)],
      },
    ]);
    expect(await live()).toEqual([
      {
        listing_id: 'A',
        price_usd: 9.99,
        first_seen_at: '2026-11-01T00:00:00.001Z',
        last_seen_at: '2026-11-01T00:00:00.003Z',
        last_event_id: 'e3',
        source: 'stream',
      },
    ]);
    expect(await count('listing_events')).toBe(4);
  });

  it('applies events in order within a batch: gone then new again starts a new first_seen_at', async () => {
    await warehouse.write([{ source: 'stream', events: [newEvent('e1', 'A', T0 + 1)] }]);
    await warehouse.write([
      {
        source: 'stream',
        events: [
          newEvent('e2', 'A', T0 + 2),
          goneEvent('e3', 'A', T0 + 3),
          newEvent('e4', 'A', T0 + 4, { price_usd: 5 }),
          newEvent('e5', 'A', T0 + 5, { price_usd: 6 }),
          newEvent('e6', 'B', T0 + 6),
          goneEvent('e7', 'B', T0 + 7),
        ],
      },
    ]);
    expect(await live()).toEqual([
      {
        listing_id: 'A',
        price_usd: 6,
        first_seen_at: '2026-11-01T00:00:00.004Z',
        last_seen_at: '2026-11-01T00:00:00.005Z',
        last_event_id: 'e5',
        source: 'stream',
      },
    ]);
  });

  it('adds nothing when the same batch is written twice, and does not apply a replayed event again', async () => {
    const batch = { source: 'stream', events: [newEvent('e1', 'A', T0 + 1), newEvent('e2', 'B', T0 + 2)] };
    await warehouse.write([batch]);
    await warehouse.write([{ source: 'stream', events: [goneEvent('e3', 'A', T0 + 3)] }]);
    const replay = await warehouse.write([batch]);
    expect(replay.rows).toBe(0);
    expect(await count('listing_events')).toBe(3);
    expect((await live()).map((r) => r.listing_id)).toEqual(['B']);
  });

  it("skips a landed id found by its log's watermark or looked up below it, and lands an unseen id below it (ids are opaque)", async () => {
    await warehouse.write([
      {
        source: 'stream',
        events: [
          newEvent('log1-5', 'A', T0 + 1),
          newEvent('log1-3', 'B', T0 + 2),
          newEvent('log2-1', 'C', T0 + 3),
        ],
      },
    ]);
    const again = await warehouse.write([
      {
        source: 'stream',
        events: [
          goneEvent('log1-3', 'B', T0 + 4),
          goneEvent('log1-5', 'A', T0 + 5),
          newEvent('log1-4', 'D', T0 + 6),
          newEvent('log1-6', 'E', T0 + 7),
        ],
      },
    ]);
    expect(again.rows).toBe(2);
    const ids = await warehouse.query('SELECT event_id FROM listing_events ORDER BY event_id');
    expect(ids.map((r) => r.event_id)).toEqual(['log1-3', 'log1-4', 'log1-5', 'log1-6', 'log2-1']);
    expect((await live()).map((r) => r.listing_id)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(await warehouse.query('SELECT log, position FROM event_watermarks ORDER BY log')).toEqual([
      { log: 'log1-', position: 6 },
      { log: 'log2-', position: 1 },
    ]);
    const replay = await warehouse.write([
      { source: 'stream', events: [newEvent('log1-4', 'D', T0 + 8), newEvent('x9', 'F', T0 + 9)] },
    ]);
    expect(replay.rows).toBe(1);
    expect(await count('listing_events')).toBe(6);
  });

  it('lands an event id repeated within one batch once, applying its first occurrence', async () => {
    await warehouse.write([
      {
        source: 'stream',
        events: [
          newEvent('e1', 'A', T0 + 1, { price_usd: 1 }),
          newEvent('e1', 'A', T0 + 2, { price_usd: 2 }),
        ],
      },
    ]);
    expect(await count('listing_events')).toBe(1);
    expect((await live())[0]?.price_usd).toBe(1);
  });

  it('lands events given as the stream sent them (data, as text or UTF-8 bytes) exactly as parsed ones', async () => {
    const parsed = [
      newEvent('e1', 'A', T0 + 1, { price_usd: 0.29 }),
      newEvent('e2', 'B', T0 + 2),
      goneEvent('e3', 'A', T0 + 3),
    ];
    await warehouse.write([{ source: 'stream', events: parsed }]);
    const expected = await warehouse.query(
      'SELECT * EXCLUDE (load_id) FROM listing_events ORDER BY event_id',
    );
    const expectedLive = await live();
    const other = await Warehouse.open(':memory:', { clock: () => T0 + 1_000_000 });
    try {
      const raw = parsed.map(({ listingId, listing, ...rest }, i) => {
        const text = JSON.stringify(listing ?? { id: listingId, name: '★ Karambit | Doppler™' });
        return { ...rest, data: i % 2 === 0 ? Buffer.from(text) : text };
      });
      await other.write([{ source: 'stream', events: raw }]);
      expect(await other.query('SELECT * EXCLUDE (load_id) FROM listing_events ORDER BY event_id')).toEqual(
        expected,
      );
      expect(
        await other.query(
          'SELECT listing_id, price_usd, first_seen_at, last_seen_at, last_event_id, source FROM live_listings ORDER BY listing_id',
        ),
      ).toEqual(expectedLive);
      expect(expectedLive.map((r) => r.listing_id)).toEqual(['B']);
    } finally {
      await other.close();
    }
  });

  it('lands any data as sent: a missing key or a value that does not cast is null with a note, a payload that is not JSON is rejected', async () => {
    const { refund_percent: _, ...noRefund } = newEvent('e1', 'A', T0).listing ?? {};
    const listing = newEvent('e2', 'B', T0).listing;
    const data = [
      JSON.stringify(noRefund),
      JSON.stringify({ ...listing, price_usd: 'cheap', seller_rating: 4.5 }),
      JSON.stringify(listing).slice(0, 40),
      '{"market_hash_name":"no id"}',
    ];
    const summary = await warehouse.write([
      {
        source: 'stream',
        events: data.map((d, i) => ({
          eventId: `e${i + 1}`,
          kind: 'new',
          appId: 730,
          receivedAt: T0,
          data: d,
        })),
        state: { last_event_id: 'e4' },
      },
    ]);
    expect(summary.loads[0]?.tables.raw_listing_events).toBe(4);
    expect(await warehouse.readState('stream')).toEqual({ last_event_id: 'e4' });
    const typed = await warehouse.query(
      `SELECT event_id, listing_id, refund_percent, price_usd, category, typing_notes, extra_fields
       FROM listing_events_typed ORDER BY event_id`,
    );
    expect(typed).toEqual([
      {
        event_id: 'e1',
        listing_id: 'A',
        refund_percent: null,
        price_usd: 12.34,
        category: 'Rifle',
        typing_notes: [{ field: 'refund_percent', reason: 'missing' }],
        extra_fields: null,
      },
      {
        event_id: 'e2',
        listing_id: 'B',
        refund_percent: 50,
        price_usd: null,
        category: 'Rifle',
        typing_notes: [{ field: 'price_usd', reason: 'expected a number, got VARCHAR' }],
        extra_fields: '{"seller_rating":4.5}',
      },
    ]);
    expect(await count('listing_events')).toBe(2);
    expect(
      await warehouse.query('SELECT source, event_id, reason FROM rejected_payloads ORDER BY event_id'),
    ).toEqual([
      { source: 'stream', event_id: 'e3', reason: 'not valid JSON' },
      { source: 'stream', event_id: 'e4', reason: 'no listing id' },
    ]);
    // Counted after landing, when what landed is applied (the batch writer does it after each write).
    expect(await warehouse.query('SELECT count(*) AS n FROM payload_checks')).toEqual([{ n: 0 }]);
    await warehouse.applyLanded();
    expect(await warehouse.query('SELECT payloads, rejected, partly_typed FROM payload_checks')).toEqual([
      { payloads: 4, rejected: 2, partly_typed: 2 },
    ]);
    const [rating] = await warehouse.query(
      "SELECT payloads FROM payload_fields WHERE source = 'stream' AND field = 'seller_rating'",
    );
    expect(rating?.payloads).toBe(1);
  });

  it('lands a batch of 5,000 events, news and gones, in one write', async () => {
    const events = Array.from({ length: 5000 }, (_, i) =>
      i % 5 === 4 ? goneEvent(`e${i}`, `L${i - 1}`, T0 + i) : newEvent(`e${i}`, `L${i}`, T0 + i),
    );
    const summary = await warehouse.write([{ source: 'stream', events, state: { last_event_id: 'e4999' } }]);
    expect(summary.loads[0]?.tables.raw_listing_events).toBe(5000);
    expect(await count('live_listings')).toBe(3000);
  });
});
