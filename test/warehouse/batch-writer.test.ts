import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchWriter, mergeBatches, Warehouse, type WarehouseBatch } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, observation, T0 } from './fixtures.js';

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

async function count(table: string): Promise<number> {
  const [row] = await warehouse.query(`SELECT count(*) AS n FROM ${table}`);
  return row?.n as number;
}

function streamBatch(i: number): WarehouseBatch {
  return {
    source: 'stream',
    events: [newEvent(`e${i}`, `L${i}`, T0 + i)],
    state: { last_event_id: `e${i}` },
  };
}

describe('BatchWriter', () => {
  it('flushes once the queued rows reach maxRows, resolving each add after its commit', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 10, maxDelayMs: 60_000 });
    const adds = Array.from({ length: 10 }, (_, i) => writer.add(streamBatch(i)));
    await adds[0];
    expect(await count('listing_events')).toBe(10);
    await Promise.all(adds);
    await writer.close();
  });

  it('flushes maxDelayMs after the first queued batch', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 1000, maxDelayMs: 30 });
    const started = performance.now();
    await writer.add(streamBatch(1));
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(await count('listing_events')).toBe(1);
    await writer.add(streamBatch(2));
    expect(await count('listing_events')).toBe(2);
    await writer.close();
  });

  it('writes one transaction per flush, merging adjacent batches of a source, last state winning', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 1000, maxDelayMs: 60_000 });
    const adds = [
      writer.add(streamBatch(1)),
      writer.add(streamBatch(2)),
      writer.add({
        source: 'fx',
        fx: { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } },
        state: { at: '1' },
      }),
      writer.add(streamBatch(3)),
      writer.add({ source: 'stream', state: { connected: 'yes' } }),
    ];
    await writer.flush();
    await Promise.all(adds);
    const loads = await warehouse.query(
      'SELECT source, rows, started_at FROM loads ORDER BY rows DESC, source',
    );
    expect(loads.map((l) => [l.source, l.rows])).toEqual([
      ['stream', 2],
      ['fx', 1],
      ['stream', 1],
    ]);
    expect(new Set(loads.map((l) => l.started_at)).size).toBe(1);
    expect(await warehouse.readState('stream')).toEqual({ last_event_id: 'e3', connected: 'yes' });
    await writer.close();
  });

  it('writes a burst in transactions of at most maxWriteRows rows, in order, the state following', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 100_000, maxDelayMs: 60_000, maxWriteRows: 2 });
    const adds = [1, 2, 3, 4, 5].map((n) => writer.add(streamBatch(n)));
    await writer.flush();
    await Promise.all(adds);
    const loads = await warehouse.query('SELECT rows FROM loads ORDER BY rows DESC');
    expect(loads.map((l) => l.rows)).toEqual([2, 2, 1]);
    expect(await warehouse.readState('stream')).toEqual({ last_event_id: 'e5' });
    await writer.close();
  });

  it('rejects the adds of a failed flush and reports it to onError, then carries on', async () => {
    const errors: unknown[] = [];
    const writer = new BatchWriter(warehouse, {
      maxRows: 2,
      maxDelayMs: 60_000,
      onError: (e) => errors.push(e),
    });
    const bad = {
      status: 'downloaded',
      etag: 'x',
      generatedAt: null,
      fetchedAt: T0,
      file: '/nope.ndjson.gz',
    } as const;
    const first = writer.add(streamBatch(1));
    const second = writer.add({ source: 'stream', snapshot: bad });
    await expect(first).rejects.toThrow(/rolled back/);
    await expect(second).rejects.toThrow(/rolled back/);
    expect(errors).toHaveLength(1);
    await Promise.all([writer.add(streamBatch(2)), writer.add(streamBatch(3))]);
    expect(await warehouse.query('SELECT event_id FROM listing_events ORDER BY 1')).toEqual([
      { event_id: 'e2' },
      { event_id: 'e3' },
    ]);
    await writer.close();
  });

  it('flushes on close and refuses batches afterwards', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 1000, maxDelayMs: 60_000 });
    const added = writer.add(streamBatch(1));
    await writer.close();
    await added;
    expect(await count('listing_events')).toBe(1);
    await expect(writer.add(streamBatch(2))).rejects.toThrow(/closed/);
  });
});

describe('mergeBatches', () => {
  it('keeps the apply order: no merge that would move observations before an earlier gone', () => {
    const gone = [{ appId: 730, listingId: 'A', detectedAt: T0, via: 'sweep' as const }];
    const merged = mergeBatches([
      { source: 'sweep:730', observations: [observation('A', T0, 's1', {}, 'sweep')], gone },
      { source: 'sweep:730', observations: [observation('A', T0 + 1, 's2', {}, 'sweep')] },
      { source: 'sweep:730', gone },
      { source: 'stream', events: [newEvent('e1', 'A', T0)] },
      { source: 'stream', events: [goneEvent('e2', 'A', T0)], state: { a: '1' } },
      { source: 'stream', state: { a: '2', b: '3' } },
    ]);
    expect(
      merged.map((b) => [b.source, b.observations?.length ?? 0, b.gone?.length ?? 0, b.events?.length ?? 0]),
    ).toEqual([
      ['sweep:730', 1, 1, 0],
      ['sweep:730', 1, 1, 0],
      ['stream', 0, 0, 2],
    ]);
    expect(merged[2]?.state).toEqual({ a: '2', b: '3' });
  });

  it('merges at most one snapshot, price list and FX set per batch', () => {
    const fx = { updatedAt: T0, fetchedAt: T0, rates: { EUR: 0.9 } };
    const merged = mergeBatches([
      { source: 'fx', fx },
      { source: 'fx', fx: { ...fx, updatedAt: T0 + 1 } },
    ]);
    expect(merged).toHaveLength(2);
  });
});
