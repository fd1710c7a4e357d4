/**
 * A move killed (SIGKILL) at each of its steps (its files written, its manifest renamed, its
 * deletes begun) loses and duplicates nothing: the next open answers every relation as before the
 * move, and a second move completes, leaving only the files its manifest lists; the events moved
 * are known still, so sent again none lands twice.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../../src/warehouse/index.js';
import { type CrashStep, readLakeManifest } from '../../../src/warehouse/lake/index.js';
import { makeTempDir, stopScripts, T0 } from '../fixtures.js';
import {
  DAY,
  dayBatches,
  killedMove,
  landDays,
  listedFiles,
  parquetFilesIn,
  printRelations,
} from './lake-fixture.js';

let dir: string;
let cleanup: () => void;
let printed: Record<string, string>;
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const clock = { now: T0 };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  await landDays(warehouse, clock, dir, 3);
  printed = await printRelations(warehouse);
  await warehouse.close();
});
afterEach(() => stopScripts());
afterAll(() => cleanup());

describe.each<CrashStep>(['copied', 'manifest', 'deleting'])('a move killed at %s', (step) => {
  it('loses and duplicates nothing, and the next move completes', async () => {
    const folder = join(dir, step);
    const path = join(folder, 'w.duckdb');
    mkdirSync(folder);
    copyFileSync(join(dir, 'w.duckdb'), path);

    const ended = await killedMove(path, new Date(T0 + 2 * DAY).toISOString(), step);
    expect(ended.signal, ended.stderr).toBe('SIGKILL');

    const warehouse = await Warehouse.open(path);
    try {
      expect(await printRelations(warehouse)).toEqual(printed);
      const second = await warehouse.moveToLake(T0 + 3 * DAY);
      expect(second.moveId).not.toBeNull();
      expect(await printRelations(warehouse)).toEqual(printed);
      const lake = join(folder, 'lake');
      const manifest = await readLakeManifest(lake);
      expect(parquetFilesIn(lake)).toEqual(listedFiles(manifest));
      // Each completed move is followed by the merge of its days of the sorted models.
      expect(manifest.moves.map((m) => (m.merged ? 'merge' : 'move'))).toEqual(
        step === 'copied' ? ['move', 'merge'] : ['move', 'move', 'merge'],
      );
      // The events moved are known still: sent again, none lands twice.
      for (let d = 0; d < 3; d++)
        for (const { batch } of dayBatches(dir, T0, d))
          if (batch.source === 'stream') await warehouse.write([batch]);
      const [events] = await warehouse.query(
        'SELECT count(*) AS n, CAST(sum(hash(r)::HUGEINT) AS VARCHAR) AS sum FROM raw_listing_events r',
      );
      expect(`${events?.n} rows, ${events?.sum}`).toBe(printed.raw_listing_events);
    } finally {
      await warehouse.close();
    }
  }, 180_000);
});
