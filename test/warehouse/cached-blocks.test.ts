import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { makeListing, makeTempDir, rawNewEvents } from './fixtures.js';

let warehouse: Warehouse;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  // Nothing kept, so any block cached is trimmed after an apply.
  warehouse = await Warehouse.open(join(temp.dir, 'wh.duckdb'), {
    memoryLimit: '256MB',
    cachedBlocksKept: 0,
  });
});

afterEach(async () => {
  await warehouse.close();
  cleanup();
});

/** What DuckDB holds of the file's blocks now, in bytes, and its memory limit. */
async function cache(): Promise<{ cached: number; limit: string }> {
  const [row] = await warehouse.query(
    `SELECT coalesce(sum(memory_usage_bytes) FILTER (WHERE tag = 'BASE_TABLE'), 0)::DOUBLE AS cached,
            current_setting('memory_limit') AS limit FROM duckdb_memory()`,
  );
  return { cached: Number(row?.cached), limit: String(row?.limit) };
}

/** Lands `count` stream events written to the file and reads them all back, so their blocks are cached. */
async function landAndRead(count: number, first: number): Promise<void> {
  const texts = Array.from({ length: count }, (_, i) =>
    JSON.stringify(makeListing(`L-${first + i}`, { inspect_link: `steam://inspect/${'x'.repeat(200)}${i}` })),
  );
  await warehouse.write([{ source: 'stream', events: rawNewEvents(texts, first) }]);
  // FORCE waits for the writes of an apply running beside it, where a plain CHECKPOINT fails.
  await warehouse.query('FORCE CHECKPOINT');
  await warehouse.query('SELECT sum(length(data)) FROM raw_listing_events');
}

describe("the file's cached blocks", () => {
  it('are evicted after an apply down to what is kept, the memory limit as it was', async () => {
    const before = (await cache()).limit;
    await landAndRead(20_000, 1);
    expect((await cache()).cached).toBeGreaterThan(2 ** 20);
    await warehouse.applyLanded();
    const after = await cache();
    // The trim's own read of duckdb_memory() may load a block or two again.
    expect(after.cached).toBeLessThan(2 ** 20);
    expect(after.limit).toBe(before);
  });

  it('leaves reads, writes and applies run at once all succeeding, the limit as it was', async () => {
    const before = (await cache()).limit;
    await landAndRead(5_000, 1);
    const work: Promise<unknown>[] = [];
    for (let round = 0; round < 10; round++) {
      work.push(warehouse.applyLanded());
      work.push(warehouse.query('SELECT count(*), sum(length(data)) FROM raw_listing_events'));
      work.push(landAndRead(500, 10_000 + round * 500));
    }
    await Promise.all(work);
    const [landed] = await warehouse.query('SELECT count(*) AS n FROM live_listings');
    expect(Number(landed?.n)).toBe(10_000);
    expect((await cache()).limit).toBe(before);
  });
});
