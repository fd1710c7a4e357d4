import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { sizeBytes } from '../../src/warehouse/warehouse-options.js';
import { makeListing, makeTempDir, rawNewEvents } from './fixtures.js';

let temp: { dir: string; cleanup: () => void };
let path: string;
let warehouse: Warehouse;

beforeEach(async () => {
  temp = makeTempDir();
  path = join(temp.dir, 'wh.duckdb');
  // Every commit of a few rows passes 1KB of log, so each would checkpoint.
  warehouse = await Warehouse.open(path, { checkpointThreshold: '1KB' });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await warehouse.close();
  temp.cleanup();
});

function logBytes(): number {
  return existsSync(`${path}.wal`) ? statSync(`${path}.wal`).size : 0;
}

/** Lands `count` new listings from `first` on, in one write, not applied yet. */
async function land(count: number, first: number): Promise<void> {
  const texts = Array.from({ length: count }, (_, i) => JSON.stringify(makeListing(`L-${first + i}`)));
  await warehouse.write([{ source: 'stream', events: rawNewEvents(texts, first) }]);
}

async function threshold(): Promise<unknown> {
  const [row] = await warehouse.query("SELECT current_setting('checkpoint_threshold') AS t");
  return row?.t;
}

describe("an apply's checkpoint", () => {
  it('comes after its commit, not in it, and the threshold in force stays', async () => {
    const before = await threshold();
    await land(200, 1);
    // The log after each statement of the apply, on any connection.
    const seen: { sql: string; log: number }[] = [];
    const run = DuckDBConnection.prototype.run;
    vi.spyOn(DuckDBConnection.prototype, 'run').mockImplementation(async function (
      this: DuckDBConnection,
      ...args: Parameters<DuckDBConnection['run']>
    ) {
      const result = await run.apply(this, args);
      seen.push({ sql: args[0].trim().split(/\s+/).slice(0, 2).join(' '), log: logBytes() });
      return result;
    });
    await warehouse.applyLanded();
    vi.restoreAllMocks();
    const commit = seen.findIndex((s) => s.sql === 'COMMIT');
    const checkpoint = seen.findIndex((s) => s.sql === 'CHECKPOINT');
    // The commit left its rows in the log (its temp tables were still held); the checkpoint after took them.
    expect(seen[commit]?.log).toBeGreaterThan(1_000);
    expect(checkpoint).toBeGreaterThan(commit);
    expect(seen[checkpoint]?.log).toBeLessThan(1_000);
    expect(await threshold()).toBe(before);
    expect(await warehouse.query('SELECT count(*) AS n FROM live_listings')).toEqual([{ n: 200 }]);
  });

  it('leaves the threshold in force when the apply fails, and the loads pending', async () => {
    const before = await threshold();
    await land(20, 1);
    await warehouse.query('ALTER TABLE live_set_marks RENAME TO live_set_marks_aside');
    await expect(warehouse.applyLanded()).rejects.toThrow(/live_set_marks/);
    expect(await threshold()).toBe(before);
    expect(await warehouse.query('SELECT count(*) AS n FROM live_set_pending')).toEqual([{ n: 1 }]);
    await warehouse.query('ALTER TABLE live_set_marks_aside RENAME TO live_set_marks');
    await warehouse.applyLanded();
    expect(await warehouse.query('SELECT count(*) AS n FROM live_set_pending')).toEqual([{ n: 0 }]);
  });

  it('is refused while another connection writes, and the apply stands', async () => {
    await warehouse.query('CREATE TABLE beside (n INTEGER)');
    await warehouse.query('INSERT INTO beside VALUES (1)');
    await land(200, 1);
    await warehouse.withConnection(async (connection) => {
      // An update open on another connection: DuckDB refuses a CHECKPOINT until it ends.
      await connection.run('BEGIN TRANSACTION');
      await connection.run('UPDATE beside SET n = 2');
      await warehouse.applyLanded();
      expect(logBytes()).toBeGreaterThan(1_000);
      await connection.run('COMMIT');
    });
    expect(await warehouse.query('SELECT count(*) AS n FROM live_set_pending')).toEqual([{ n: 0 }]);
    expect(await warehouse.query('SELECT count(*) AS n FROM live_listings')).toEqual([{ n: 200 }]);
  });
});

describe('a checkpoint threshold', () => {
  it("is read in DuckDB's units, and one it cannot read is refused at open", async () => {
    expect(sizeBytes('16MB')).toBe(16_000_000);
    expect(sizeBytes('1GiB')).toBe(2 ** 30);
    expect(sizeBytes('1.5 kb')).toBe(1_500);
    expect(sizeBytes('4096')).toBe(4_096);
    expect(() => sizeBytes('lots')).toThrow('not a size DuckDB takes: lots');
    await expect(
      Warehouse.open(join(temp.dir, 'bad.duckdb'), { calmCheckpointThreshold: '16 parsecs' }),
    ).rejects.toThrow('not a size DuckDB takes: 16 parsecs');
  });
});
