/**
 * A page item byte-identical to its listing's last `new` stream event is recorded as a repeat of
 * the event (`same_via` `stream`, `same_pass_id` the event id) instead of stored again: every item
 * is still given back as sent, also once the event moved to the lake, and every model and the live
 * set answer as they do with the items stored whole.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, pageItem, random, T0 } from './fixtures.js';

const DAY = 86_400_000;

let dir: string;
let cleanup: () => void;
let clock: { now: number };
let count = 0;

beforeAll(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterAll(() => cleanup());

/** A fresh warehouse in a folder of its own (its lake beside it), its clock `clock.now`. */
async function openWarehouse(): Promise<Warehouse> {
  clock = { now: T0 };
  const folder = join(dir, `w${++count}`);
  mkdirSync(folder);
  return Warehouse.open(join(folder, 'w.duckdb'), { clock: () => clock.now });
}

/** Writes `batches` with the clock at `at`, then brings the live set up to date, as the batch writer does. */
async function write(warehouse: Warehouse, at: number, ...batches: WarehouseBatch[]): Promise<number> {
  clock.now = at;
  const { rows } = await warehouse.write(batches);
  await warehouse.applyLanded();
  return rows;
}

describe('page items that repeat a stream event', () => {
  it("records an item byte-identical to its listing's new event as a repeat of the event, and gives back every item as sent", async () => {
    const warehouse = await openWarehouse();
    try {
      const passes = [
        // A as the stream announced it (a repeat of e-1); B changed since its event (stored).
        [
          pageItem('A', T0 + 100, 'p1', 'poll', 10, [0, 0]),
          pageItem('B', T0 + 100, 'p1', 'poll', 21, [0, 1]),
        ],
        // A still as its event; B as p1 stored it.
        [
          pageItem('B', T0 + 200, 's1', 'sweep', 21, [0, 0]),
          pageItem('A', T0 + 200, 's1', 'sweep', 10, [1, 0]),
        ],
      ];
      await write(warehouse, T0, {
        source: 'stream',
        events: [newEvent('e-1', 'A', T0, { price_usd: 10 }), newEvent('e-2', 'B', T0, { price_usd: 20 })],
      });
      for (const [i, observations] of passes.entries())
        await write(warehouse, T0 + 100 * (i + 1), { source: 'sweep:730', observations });
      // A changes on the stream, and the next poll sees it so.
      const changed = [pageItem('A', T0 + 300, 'p2', 'poll', 12)];
      await write(warehouse, T0 + 300, {
        source: 'stream',
        events: [newEvent('e-3', 'A', T0 + 300, { price_usd: 12 })],
      });
      await write(warehouse, T0 + 300, { source: 'poll:730', observations: changed });
      // An event and an item equal to it in one write: the item is compared with the live set's
      // state, which does not hold the event yet, so it is stored.
      const together = [pageItem('C', T0 + 400, 'p3', 'poll', 30)];
      await write(
        warehouse,
        T0 + 400,
        { source: 'stream', events: [newEvent('e-4', 'C', T0 + 400, { price_usd: 30 })] },
        { source: 'poll:730', observations: together },
      );
      passes.push(changed, together);

      expect(
        await warehouse.query('SELECT via, pass_id, listing_id FROM raw_listing_observations ORDER BY ALL'),
      ).toEqual([
        { via: 'poll', pass_id: 'p1', listing_id: 'B' },
        { via: 'poll', pass_id: 'p3', listing_id: 'C' },
      ]);
      expect(
        await warehouse.query(
          'SELECT via, pass_id, listing_id, same_via, same_pass_id FROM raw_listing_repeats ORDER BY observed_at, listing_id',
        ),
      ).toEqual([
        { via: 'poll', pass_id: 'p1', listing_id: 'A', same_via: 'stream', same_pass_id: 'e-1' },
        { via: 'sweep', pass_id: 's1', listing_id: 'A', same_via: 'stream', same_pass_id: 'e-1' },
        { via: 'sweep', pass_id: 's1', listing_id: 'B', same_via: 'poll', same_pass_id: 'p1' },
        { via: 'poll', pass_id: 'p2', listing_id: 'A', same_via: 'stream', same_pass_id: 'e-3' },
      ]);
      const sent = passes
        .flat()
        .map((o) => ({ via: o.via, pass_id: o.passId, page: o.page, item: o.index, raw: o.data }));
      expect(
        await warehouse.query(
          'SELECT via, pass_id, page, item, raw FROM listing_observations_typed ORDER BY observed_at, page, item',
        ),
      ).toEqual(sent);
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      expect(
        await warehouse.query(
          'SELECT listing_id, price_usd, last_seen_at, last_event_id FROM live_listings ORDER BY ALL',
        ),
      ).toEqual([
        { listing_id: 'A', price_usd: 12, last_seen_at: at(300), last_event_id: 'e-3' },
        { listing_id: 'B', price_usd: 21, last_seen_at: at(200), last_event_id: 'e-2' },
        { listing_id: 'C', price_usd: 30, last_seen_at: at(400), last_event_id: 'e-4' },
      ]);
      // A replayed pass lands nothing.
      expect(await write(warehouse, T0 + 500, { source: 'poll:730', observations: passes[0] ?? [] })).toBe(0);
    } finally {
      await warehouse.close();
    }
  });

  it('gives back a repeat whose event moved to the lake, and every relation reads the same after the move', async () => {
    const warehouse = await openWarehouse();
    try {
      await write(warehouse, T0 + 1000, {
        source: 'stream',
        events: [newEvent('e-1', 'A', T0 + 1000, { price_usd: 10 })],
      });
      for (const d of [0, 1, 2]) {
        await write(warehouse, T0 + d * DAY + 2000, {
          source: 'poll:730',
          observations: [pageItem('A', T0 + d * DAY + 2000, `p${d}`, 'poll', 10)],
        });
      }
      clock.now = T0 + 2 * DAY + 3000;
      await warehouse.refreshModels();
      const relations = [
        'listing_observations_typed',
        'listing_observations',
        'live_listings',
        ...warehouse.models().map((m) => m.name),
      ];
      const print = async () => {
        const out: Record<string, unknown> = {};
        for (const r of relations)
          out[r] = await warehouse.query(
            `SELECT COLUMNS(c -> c <> 'built_watermark') FROM ${r} ORDER BY ALL`,
          );
        return out;
      };
      const before = await print();
      expect(before.listing_observations_typed).toHaveLength(3);
      await warehouse.moveToLake(T0 + 2 * DAY);
      // The event and two of its repeats are in the lake; the third repeat is in the file.
      expect(await warehouse.query('SELECT count(*)::INT AS n FROM raw_listing_events__hot')).toEqual([
        { n: 0 },
      ]);
      expect(
        await warehouse.query(
          "SELECT pass_id, same_pass_id FROM raw_listing_repeats__hot WHERE same_via = 'stream'",
        ),
      ).toEqual([{ pass_id: 'p2', same_pass_id: 'e-1' }]);
      expect(await print()).toEqual(before);
      await warehouse.refreshModels({ fullRefresh: true });
      expect(await print()).toEqual(before);
    } finally {
      await warehouse.close();
    }
  }, 120_000);

  it('builds every model, and the live set, as the same items stored whole do (EXCEPT ALL both ways)', async () => {
    const warehouse = await openWarehouse();
    try {
      const next = random(44);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const ids = ['A', 'B', 'C', 'D'];
      /** Each listing's ask in its last event: most items see it, so they repeat the event. */
      const asks = new Map<string, number>();
      let position = 0;
      let at = T0;
      for (let step = 0; step < 40; step++) {
        at += 60_000;
        const batch: WarehouseBatch = { source: pick(['stream', 'poll:730', 'sweep:730']) };
        if (batch.source === 'stream') {
          const id = pick(ids);
          position++;
          if (next() < 0.8) asks.set(id, position);
          else asks.delete(id);
          batch.events = [
            asks.has(id)
              ? newEvent(`s-${position}`, id, at, { price_usd: position })
              : goneEvent(`s-${position}`, id, at),
          ];
        } else {
          const ask = (id: string) => (next() < 0.8 ? (asks.get(id) ?? 1000) : 1000);
          batch.observations = ids.map((id, i) => pageItem(id, at, `pass-${step}`, 'poll', ask(id), [0, i]));
        }
        clock.now = at;
        await warehouse.write([batch]);
        if (next() < 0.7) await warehouse.applyLanded();
      }
      const [repeats] = await warehouse.query(
        "SELECT count(*)::INT AS n FROM raw_listing_repeats WHERE same_via = 'stream'",
      );
      expect(repeats?.n).toBeGreaterThan(5);
      clock.now = at + 60_000;
      await warehouse.refreshModels({ fullRefresh: true });
      const relations = [...warehouse.models().map((m) => m.name), 'live_listings'];
      await warehouse.withConnection(async (connection) => {
        await connection.run('CREATE SCHEMA kept');
        for (const r of relations)
          await connection.run(
            `CREATE TABLE kept.${r} AS SELECT COLUMNS(c -> c <> 'built_watermark') FROM main.${r}`,
          );
        // The repeats of events stored whole instead, as page items were before they pointed at events.
        await connection.run(
          `INSERT INTO raw_listing_observations__hot BY NAME
           SELECT s.via, s.pass_id, s.page, s.item, s.listing_id, s.app_id, d.data, s.observed_at, s.load_id, s.ingested_at
           FROM raw_listing_repeats__hot s JOIN raw_listing_events__hot d ON s.same_via = 'stream' AND d.event_id = s.same_pass_id`,
        );
        await connection.run("DELETE FROM raw_listing_repeats__hot WHERE same_via = 'stream'");
        // The live set from the whole history.
        await connection.run('DELETE FROM live_set_state');
        await connection.run('DELETE FROM live_set_pending');
        await connection.run('INSERT INTO live_set_pending SELECT load_id, started_at FROM loads');
      });
      const [stored] = await warehouse.query(
        "SELECT count(*)::INT AS n FROM raw_listing_repeats WHERE same_via = 'stream'",
      );
      expect(stored?.n).toBe(0);
      await warehouse.refreshModels({ fullRefresh: true });
      for (const r of relations) {
        const [diff] = await warehouse.query(
          `SELECT (SELECT count(*) FROM (SELECT * FROM kept.${r} EXCEPT ALL SELECT COLUMNS(c -> c <> 'built_watermark') FROM main.${r}))::INT AS only_kept,
                  (SELECT count(*) FROM (SELECT COLUMNS(c -> c <> 'built_watermark') FROM main.${r} EXCEPT ALL SELECT * FROM kept.${r}))::INT AS only_now,
                  (SELECT count(*) FROM kept.${r})::INT AS n`,
        );
        expect({ relation: r, ...diff }).toEqual({ relation: r, only_kept: 0, only_now: 0, n: diff?.n });
      }
      const [rows] = await warehouse.query('SELECT count(*)::INT AS n FROM kept.stg_listing_appearances');
      expect(rows?.n).toBeGreaterThan(50);
    } finally {
      await warehouse.close();
    }
  }, 120_000);
});
