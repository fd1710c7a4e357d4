/**
 * The service's database file: made with 64 KiB blocks, so rows appended since a checkpoint hold a
 * quarter of the memory they held in DuckDB's 256 KiB blocks; a file made before keeps its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openService } from '../../src/service/service.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-service-db-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A file made by DuckDB with its own default blocks (256 KiB), as service files were made before. */
async function makeFileWithDuckDbDefaults(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  instance.closeSync();
}

/** The file's block size, and the bytes of rows appended by churn after a checkpoint. */
async function blocksAndHeld(path: string): Promise<{ block: number; held: number }> {
  const service = await openService({ dbPath: path, listings: 200, churnPaused: true });
  try {
    const { db, churn, clock } = service.context;
    await db.run('CHECKPOINT');
    await churn.configure({ paused: false, ratePerSecond: 20 });
    for (let n = 0; n < 10; n += 1) {
      clock.advance(1_000);
      await churn.tick();
    }
    const [size] = await db.read<{ block_size: bigint }>(
      'SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()',
    );
    const [memory] = await db.read<{ bytes: bigint }>(
      "SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT AS bytes FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'",
    );
    return { block: Number(size?.block_size), held: Number(memory?.bytes) };
  } finally {
    await service.close();
  }
}

describe('the service database file', () => {
  it('is made with 64 KiB blocks, and an older file opens with the blocks it has', async () => {
    const fresh = await blocksAndHeld(join(dir, 'new.duckdb'));
    const olderPath = join(dir, 'older.duckdb');
    await makeFileWithDuckDbDefaults(olderPath);
    const older = await blocksAndHeld(olderPath);
    expect(fresh.block).toBe(65_536);
    expect(older.block).toBe(262_144);
    // A block per column and validity mask of each table the churn appended to since the checkpoint.
    expect(older.held).toBeGreaterThan(0);
    expect(fresh.held).toBeLessThan(older.held / 2);
  });
});
