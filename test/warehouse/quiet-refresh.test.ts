/**
 * A refresh when nothing landed since the last one (the same instant, or an upstream silent for
 * an hour) builds nothing new and changes no row. `fct_minask_history` used to take "nothing new"
 * for "every minute since 1970" and ran for minutes on a series of 29 million minutes a game.
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir } from './fixtures.js';
import { landDays, printRelations } from './lake/lake-fixture.js';

const temp = makeTempDir();
afterAll(() => temp.cleanup());

it('builds nothing and changes no row when nothing landed since the last refresh', async () => {
  const clock = { now: 0 };
  const warehouse = await Warehouse.open(join(temp.dir, 'quiet.duckdb'), { clock: () => clock.now });
  try {
    await landDays(warehouse, clock, temp.dir, 2);
    const before = await printRelations(warehouse);
    const history = () => warehouse.query('SELECT count(*) AS n FROM fct_minask_history');
    expect(Number((await history())[0]?.n)).toBeGreaterThan(0);
    for (const step of [0, 3_600_000]) {
      clock.now += step;
      const run = await warehouse.refreshModels();
      // fct_minask_history is a view over these two.
      for (const model of ['int_minask_minutes', 'int_minask_spells'])
        expect(run.models.find((m) => m.model === model)).toMatchObject({ mode: 'incremental', rows: 0 });
      expect(await printRelations(warehouse)).toEqual(before);
    }
  } finally {
    await warehouse.close();
  }
}, 180_000);
