import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, T0 } from './fixtures.js';

/** The checkpoint threshold the warehouse opens with: 1 MB. */
const THRESHOLD = 1_000_000;

let warehouse: Warehouse;
let path: string;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  path = join(temp.dir, 'wh.duckdb');
  warehouse = await Warehouse.open(path, { clock: () => T0 + 1_000_000, checkpointThreshold: '1MB' });
});

afterAll(async () => {
  await warehouse.close();
  cleanup();
});

/** The write-ahead log's size in bytes (0 when there is none, or a checkpoint just removed it). */
function walBytes(): number {
  try {
    return statSync(`${path}.wal`).size;
  } catch {
    return 0;
  }
}

/** `count` `new` stream events of about 1 kB each, for listings `L<first>` on. */
function arrivals(first: number, count: number) {
  return Array.from({ length: count }, (_, i) =>
    newEvent(`log-${first + i}`, `L${first + i}`, T0 + i, {
      image: `https://cdn.example/${'x'.repeat(900)}`,
    }),
  );
}

/** A read on a connection of its own that keeps its transaction open until `release` is called. */
function holdRead(): { release: () => void; done: Promise<void> } {
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const done = warehouse.withConnection(async (connection) => {
    await connection.run('BEGIN TRANSACTION READ ONLY');
    await connection.run('SELECT count(*) FROM raw_listing_events');
    await held;
    await connection.run('COMMIT');
  });
  return { release, done };
}

describe('Warehouse: a checkpoint a read held off', () => {
  it('runs once the read ends, without waiting for another commit', async () => {
    await warehouse.write([{ source: 'stream', events: arrivals(0, 2000) }]);
    await warehouse.applyLanded();
    const read = holdRead();
    try {
      // Lets the read open its transaction first.
      await warehouse.query('SELECT 1');
      const departures = Array.from({ length: 2000 }, (_, i) =>
        goneEvent(`log-${2000 + i}`, `L${i}`, T0 + 5000),
      );
      // DuckDB does not checkpoint at this commit while the read is open: the log passes 1 MB.
      const writing = warehouse.write([
        { source: 'stream', events: [...departures, ...arrivals(4000, 2000)] },
      ]);
      while (walBytes() <= THRESHOLD) await new Promise((resolve) => setImmediate(resolve));
      read.release();
      await writing;
    } finally {
      read.release();
      await read.done;
    }
    expect(walBytes()).toBeLessThan(THRESHOLD);
    const [row] = await warehouse.query('SELECT count(*) AS n FROM live_listings');
    expect(row?.n).toBe(2000);
  });
});
