import { existsSync, statSync } from 'node:fs';
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

/**
 * What a reader sees now, read in one transaction so a write in flight cannot come between: the
 * loads the live set's state does not cover yet, the stream events landed, the live listings.
 */
async function readerView(): Promise<{ pending: number; events: number; live: string[] }> {
  return warehouse.withConnection(async (connection) => {
    const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
    await connection.run('BEGIN TRANSACTION');
    try {
      const [pending] = await rows('SELECT count(*) AS n FROM live_set_pending');
      const [events] = await rows('SELECT count(*) AS n FROM raw_listing_events');
      const live = await rows('SELECT listing_id FROM live_listings ORDER BY listing_id');
      return {
        pending: Number(pending?.n),
        events: Number(events?.n),
        live: live.map((r) => String(r.listing_id)),
      };
    } finally {
      await connection.run('ROLLBACK');
    }
  });
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

  it('keeps the live set exact while a burst defers the refresh, and counts every payload after it', async () => {
    const writer = new BatchWriter(warehouse, {
      maxRows: 100_000,
      maxDelayMs: 60_000,
      maxWriteRows: 2,
      refreshRows: 1000,
    });
    // Each batch lists a listing and delists the one listed two batches before.
    const adds = [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
      writer.add({
        source: 'stream',
        events: [
          newEvent(`e${2 * n}`, `L${n}`, T0 + 2 * n),
          ...(n > 2 ? [goneEvent(`e${2 * n + 1}`, `L${n - 2}`, T0 + 2 * n + 1)] : []),
        ],
        state: { last_event_id: `e${2 * n}` },
      }),
    );
    const flushed = writer.flush();
    await adds[1];
    // Batches 1 and 2 hold one event each, every later one two; after batch m, L(m-1) and L(m) are live.
    const during = await readerView();
    const batches = (during.events + 2) / 2;
    expect(during.pending).toBeGreaterThan(0);
    expect(during.live).toEqual([`L${batches - 1}`, `L${batches}`]);
    await flushed;
    await Promise.all(adds);
    expect(await readerView()).toEqual({ pending: 0, events: 14, live: ['L7', 'L8'] });
    expect(
      await warehouse.query("SELECT payloads, rejected FROM payload_checks WHERE source = 'stream'"),
    ).toEqual([{ payloads: 14, rejected: 0 }]);
    const fields = await warehouse.query(
      "SELECT field, payloads FROM payload_fields WHERE field IN ('id', 'price_usd') ORDER BY field",
    );
    expect(fields).toEqual([
      { field: 'id', payloads: 14 },
      { field: 'price_usd', payloads: 8 },
    ]);
    await writer.close();
  });

  it('is calm at once without a burst, and once a burst has landed and the live set covers it', async () => {
    const writer = new BatchWriter(warehouse, { maxRows: 100_000, maxDelayMs: 60_000, maxWriteRows: 2 });
    await writer.calm();
    const adds = [1, 2, 3, 4, 5].map((n) => writer.add(streamBatch(n)));
    expect(writer.bursting).toBe(true);
    let calmAt: { events: number; pending: number } | undefined;
    const calm = writer.calm().then(async () => {
      calmAt = { events: await count('raw_listing_events'), pending: await count('live_set_pending') };
    });
    // The same end for every caller.
    expect(writer.calm()).toBe(writer.calm());
    const flushed = writer.flush();
    await adds[1];
    expect(calmAt).toBeUndefined();
    await flushed;
    await calm;
    expect(calmAt).toEqual({ events: 5, pending: 0 });
    expect(writer.bursting).toBe(false);
    await writer.close();
  });

  it('brings the state and the counts up to date after a write while only a trickle waits', async () => {
    const writer = new BatchWriter(warehouse, {
      maxRows: 100_000,
      maxDelayMs: 60_000,
      maxWriteRows: 100,
      refreshRows: 1000,
    });
    const first = writer.add(streamBatch(1));
    const written = writer.flush();
    // Queued while the first write is in flight: one row, far from a burst.
    const second = writer.add(streamBatch(2));
    await first;
    await expect.poll(() => count('live_set_pending'), { timeout: 5_000 }).toBe(0);
    expect(await warehouse.query("SELECT payloads FROM payload_checks WHERE source = 'stream'")).toEqual([
      { payloads: 1 },
    ]);
    await written;
    await writer.close();
    await second;
    expect(await count('live_set_pending')).toBe(0);
  });

  it('applies a trickle together at most every refreshDelayMs, and at once when flushed', async () => {
    const trickle = (refreshDelayMs: number) =>
      new BatchWriter(warehouse, {
        maxRows: 100_000,
        maxDelayMs: 1,
        maxWriteRows: 100,
        refreshRows: 1000,
        refreshDelayMs,
      });
    const writer = trickle(3_600_000);
    // The first write is applied at once: none was applied within the delay.
    await writer.add(streamBatch(1));
    await expect.poll(() => count('live_set_pending'), { timeout: 5_000 }).toBe(0);
    // Each later write landing commits after the one before has been applied or deferred.
    await writer.add(streamBatch(2));
    await writer.add(streamBatch(3));
    expect((await readerView()).live).toEqual(['L1', 'L2', 'L3']);
    expect(await count('live_set_pending')).toBeGreaterThanOrEqual(1);
    expect(await warehouse.query("SELECT payloads FROM payload_checks WHERE source = 'stream'")).toEqual([
      { payloads: 1 },
    ]);
    await writer.flush();
    expect(await readerView()).toEqual({ pending: 0, events: 3, live: ['L1', 'L2', 'L3'] });
    expect(await warehouse.query("SELECT payloads FROM payload_checks WHERE source = 'stream'")).toEqual([
      { payloads: 3 },
    ]);
    await writer.close();
    // A trickle left alone is applied once the delay has passed.
    const timed = trickle(300);
    await timed.add(streamBatch(4));
    await timed.add(streamBatch(5));
    await expect.poll(() => count('live_set_pending'), { timeout: 10_000 }).toBe(0);
    expect(await warehouse.query("SELECT payloads FROM payload_checks WHERE source = 'stream'")).toEqual([
      { payloads: 5 },
    ]);
    await timed.close();
  });

  it('checkpoints at the burst threshold while full writes land and at the calm one after', async () => {
    const temp = makeTempDir();
    const path = join(temp.dir, 'thresholds.duckdb');
    const logBytes = () => (existsSync(`${path}.wal`) ? statSync(`${path}.wal`).size : 0);
    const own = await Warehouse.open(path, { checkpointThreshold: '1GB', calmCheckpointThreshold: '1KB' });
    try {
      // Queued faster than it lands: writes of ten rows each while the rest wait.
      const writer = new BatchWriter(own, { maxRows: 10, maxDelayMs: 60_000, maxWriteRows: 10 });
      const adds = Array.from({ length: 60 }, (_, i) => writer.add(streamBatch(i + 1)));
      await Promise.all(adds);
      await writer.flush();
      // Six full writes and their apply: in the log, none checkpointed at 1GB.
      const burst = logBytes();
      expect(burst).toBeGreaterThan(16_384);
      // A trickle's write right after still counts as the burst's; the next is calm, and its
      // commit checkpoints at 1KB.
      for (const n of [61, 62]) {
        const trickle = writer.add(streamBatch(n));
        await writer.flush();
        await trickle;
      }
      expect(logBytes()).toBeLessThan(1_024);
      expect((await own.query('SELECT count(*) AS n FROM raw_listing_events'))[0]?.n).toBe(62);
      await writer.close();
    } finally {
      await own.close();
      temp.cleanup();
    }
  }, 30_000);

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

  it('leaves no trickle refresh behind a close whose last write failed', async () => {
    const temp = makeTempDir();
    const own = await Warehouse.open(join(temp.dir, 'failed-close.duckdb'));
    const errors: unknown[] = [];
    const writer = new BatchWriter(own, {
      maxRows: 100_000,
      maxDelayMs: 1,
      maxWriteRows: 100,
      refreshDelayMs: 2_000,
      onError: (e) => errors.push(e),
    });
    try {
      await writer.add(streamBatch(1));
      await writer.flush();
      // Landed within the delay of the flush's refresh, so it waits for the trickle's.
      await writer.add(streamBatch(2));
      expect(await own.query('SELECT count(*) AS n FROM live_set_pending')).toEqual([{ n: 1 }]);
      const bad = {
        status: 'downloaded',
        etag: 'x',
        generatedAt: null,
        fetchedAt: T0,
        file: '/nope.ndjson.gz',
      } as const;
      const failed = writer.add({ source: 'stream', snapshot: bad });
      await expect(writer.close()).rejects.toThrow(/rolled back/);
      await expect(failed).rejects.toThrow(/rolled back/);
      await own.close();
      // Past the trickle's delay: a refresh left armed would have reported the closed warehouse.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(errors).toEqual([]);
    } finally {
      await own.close().catch(() => undefined);
      temp.cleanup();
    }
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
