import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWarehouseWriteError, Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { makeTempDir, newEvent, observation, startScript, stopScripts, T0 } from './fixtures.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => {
  stopScripts();
  cleanup();
});

const TABLES = [
  'loads',
  'raw_listing_events',
  'raw_listing_observations',
  'raw_listing_repeats',
  'live_listings',
  'fx_rates',
  'collector_state',
];

async function counts(warehouse: Warehouse): Promise<Record<string, unknown>> {
  const union = TABLES.map((t) => `SELECT '${t}' AS t, count(*) AS n FROM ${t}`).join(' UNION ALL ');
  const rows = await warehouse.query(union);
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

describe('Warehouse.write atomicity', () => {
  it.each<[string, WarehouseBatch]>([
    [
      'a snapshot file that does not exist',
      {
        source: 'snapshot',
        snapshot: {
          status: 'downloaded',
          etag: 'x',
          generatedAt: null,
          fetchedAt: T0,
          file: '/nope.ndjson.gz',
        },
      },
    ],
  ])('lands no row and no state of any batch when one holds %s', async (_, bad) => {
    const warehouse = await Warehouse.open(join(dir, 'wh.duckdb'));
    try {
      const good: WarehouseBatch[] = [
        { source: 'stream', events: [newEvent('e1', 'A', T0)], state: { last_event_id: 'e1' } },
        { source: 'poll:730', observations: [observation('B', T0, 'w1')], state: { watermark: '1' } },
        { source: 'fx', fx: { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } }, state: { at: '1' } },
      ];
      const error = await warehouse
        .write([...good, { ...bad, state: { marker: 'bad' } }])
        .catch((e: unknown) => e);
      expect(isWarehouseWriteError(error)).toBe(true);
      expect((error as Error).message).toMatch(/rolled back/);
      expect(await counts(warehouse)).toEqual(Object.fromEntries(TABLES.map((t) => [t, 0])));
      expect(await warehouse.readState('stream')).toEqual({});
      await warehouse.write(good);
      expect(await warehouse.readState('stream')).toEqual({ last_event_id: 'e1' });
    } finally {
      await warehouse.close();
    }
  });
});

describe('Warehouse crash safety', () => {
  it('keeps exactly the committed batches and their state across SIGKILLs at random moments', async () => {
    const path = join(dir, 'wh.duckdb');
    let previous = -1;
    for (let round = 0; round < 5; round += 1) {
      const child = startScript('scripts/crash-writer.ts', [path]);
      await child.waitFor(`committed ${previous + 1}\n`);
      // Real time on purpose: the kill lands at a random point of the writer's work.
      await delay(Math.floor(Math.random() * 500));
      child.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');

      const warehouse = await Warehouse.open(path);
      try {
        const n = Number((await warehouse.readState('crash')).n);
        expect(n).toBeGreaterThan(previous);
        const [summary] = await warehouse.query(`
          SELECT count(*) AS events, count(DISTINCT event_id) AS ids,
                 (SELECT count(*) FROM loads) AS loads,
                 (SELECT count(*) FROM live_listings) AS live,
                 max(CAST(split_part(event_id, '-', 1) AS INTEGER)) AS last_batch
          FROM listing_events`);
        const expected = (n * (n + 1)) / 2;
        expect(summary).toEqual({
          events: expected,
          ids: expected,
          loads: n + 1,
          live: expected,
          // Batch 0 holds no event, so when only it committed there is no last batch to find.
          last_batch: n === 0 ? null : n,
        });
        const wrong = await warehouse.query(`
          SELECT batch, count(*) AS n FROM (
            SELECT CAST(split_part(event_id, '-', 1) AS INTEGER) AS batch FROM listing_events
          ) GROUP BY batch HAVING count(*) <> batch`);
        expect(wrong).toEqual([]);
        previous = n;
      } finally {
        await warehouse.close();
      }
    }
  });
});
