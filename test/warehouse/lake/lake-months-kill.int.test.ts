/**
 * A merge of a month's day files into one file, killed (SIGKILL) at each of its steps (its month
 * files written, its manifest renamed, its first day file removed), loses and duplicates nothing:
 * the next open answers every relation as before, and the next move completes it, leaving only the
 * files its manifest lists, each month in one file.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../../src/warehouse/index.js';
import { type CrashStep, readLakeManifest } from '../../../src/warehouse/lake/index.js';
import { makeTempDir, stopScripts, T0 } from '../fixtures.js';
import { DAY, killedMove, landDays, listedFiles, parquetFilesIn, printRelations } from './lake-fixture.js';

/** Two days of October, then the 1st of November. */
const START = T0 - 2 * DAY;

let dir: string;
let cleanup: () => void;
let printed: Record<string, string>;
beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const clock = { now: START };
  const warehouse = await Warehouse.open(join(dir, 'w.duckdb'), { clock: () => clock.now });
  await landDays(warehouse, clock, dir, 3, 0, START);
  printed = await printRelations(warehouse);
  await warehouse.close();
});
afterEach(() => stopScripts());
afterAll(() => cleanup());

describe.each<CrashStep>(['month-copied', 'month-manifest', 'month-removing'])(
  'a merge of months killed at %s',
  (step) => {
    it('loses and duplicates nothing, and the next move completes it', async () => {
      const folder = join(dir, step);
      const path = join(folder, 'w.duckdb');
      mkdirSync(folder);
      copyFileSync(join(dir, 'w.duckdb'), path);

      // Every row before the 1st of November: October's two days merge.
      const ended = await killedMove(path, new Date(T0).toISOString(), step);
      expect(ended.signal, ended.stderr).toBe('SIGKILL');

      const warehouse = await Warehouse.open(path);
      try {
        expect(await printRelations(warehouse)).toEqual(printed);
        const second = await warehouse.moveToLake(T0 + DAY);
        expect(second.moveId).not.toBeNull();
        // November's first day joins a file of its month; October too when its merge was lost.
        const months = step === 'month-copied' ? ['2026-10', '2026-11'] : ['2026-11'];
        expect(second.merged).toEqual({ fct_minask_hourly: months, int_minask_spells: months });
        expect(await printRelations(warehouse)).toEqual(printed);
        const lake = join(folder, 'lake');
        const manifest = await readLakeManifest(lake);
        expect(parquetFilesIn(lake)).toEqual(listedFiles(manifest));
        for (const relation of ['int_minask_spells', 'fct_minask_hourly'])
          expect((manifest.relations[relation] ?? []).map((f) => [f.date, f.through])).toEqual([
            ['2026-10-30', '2026-10-31'],
            ['2026-11-01', '2026-11-01'],
          ]);
        expect(manifest.moves.map((m) => (m.merged ? 'merge' : 'move'))).toEqual(
          step === 'month-copied' ? ['move', 'move', 'merge'] : ['move', 'merge', 'move', 'merge'],
        );
      } finally {
        await warehouse.close();
      }
    }, 180_000);
  },
);
