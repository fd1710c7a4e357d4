import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { goneEvent, makeTempDir, newEvent, observation, T0 } from './fixtures.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => cleanup());

/** A file made by DuckDB with its own default blocks (256 KiB), as warehouses were made before. */
async function makeFileWithDuckDbDefaults(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run('CREATE TABLE made_before (x INTEGER)');
  connection.closeSync();
  instance.closeSync();
}

async function blockBytes(warehouse: Warehouse): Promise<number> {
  const [row] = await warehouse.query(
    'SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()',
  );
  return Number(row?.block_size);
}

/** A stream event, a page item and a departure landed and applied: rows appended to many tables. */
async function landSome(warehouse: Warehouse, n: number): Promise<void> {
  const at = T0 + n * 1_000;
  await warehouse.write([
    { source: 'stream', events: [newEvent(`e${n}`, `L${n}`, at), goneEvent(`g${n}`, `L${n - 1}`, at)] },
    { source: 'poll:730', observations: [observation(`P${n}`, at, `p${n}`)] },
  ]);
  await warehouse.applyLanded();
}

/** DuckDB's bytes of rows appended and not yet checkpointed (`IN_MEMORY_TABLE`). */
async function appendedBytes(warehouse: Warehouse): Promise<number> {
  const [row] = await warehouse.query(
    "SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT AS bytes FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'",
  );
  return Number(row?.bytes);
}

/** What one more landing after a checkpoint holds in memory, in a warehouse at `path`. */
async function heldAfterCheckpoint(path: string): Promise<{ block: number; held: number }> {
  const warehouse = await Warehouse.open(path, { clock: () => T0 + 10_000_000 });
  try {
    await landSome(warehouse, 1);
    await warehouse.query('CHECKPOINT');
    await landSome(warehouse, 2);
    return { block: await blockBytes(warehouse), held: await appendedBytes(warehouse) };
  } finally {
    await warehouse.close();
  }
}

describe('the blocks of a warehouse file', () => {
  it('makes a new file with 64 KiB blocks, and opens an older file with the blocks it has', async () => {
    const fresh = await heldAfterCheckpoint(join(dir, 'new.duckdb'));
    const olderPath = join(dir, 'older.duckdb');
    await makeFileWithDuckDbDefaults(olderPath);
    const older = await heldAfterCheckpoint(olderPath);
    expect(fresh.block).toBe(65_536);
    expect(older.block).toBe(262_144);
    // Rows appended since the checkpoint take a block per column and validity mask of each table
    // written: about a quarter of the bytes with blocks a quarter as big (8.8 against 34.9 MiB here).
    expect(older.held).toBeGreaterThan(0);
    expect(fresh.held).toBeLessThan(older.held / 3);
  });
});
