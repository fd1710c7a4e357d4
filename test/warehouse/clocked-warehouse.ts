/** A test file's warehouse on a clock of its own: opened before the file's tests, closed after. */
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir } from './fixtures.js';

/** A warehouse of a test file: its folder, the clock it reads, and the open warehouse. */
export interface ClockedWarehouse {
  clock: { now: number };
  dir: string;
  warehouse: Warehouse;
}

/**
 * A warehouse in a fresh temp folder on a clock the test moves (from `start`), opened before the
 * file's tests and closed, its folder removed, after them.
 */
export function useClockedWarehouse(start: number): ClockedWarehouse {
  const opened = { clock: { now: start } } as ClockedWarehouse;
  let cleanup = () => {};
  beforeAll(async () => {
    ({ dir: opened.dir, cleanup } = makeTempDir());
    opened.warehouse = await Warehouse.open(join(opened.dir, 'w.duckdb'), { clock: () => opened.clock.now });
  });
  afterAll(async () => {
    await opened.warehouse?.close();
    cleanup();
  });
  return opened;
}
