/**
 * A warehouse file may have any name: one named `history.duckdb` (DuckDB names the catalog after
 * the file's stem, and the lake's relations were once read as `history.<table>`) lands, builds its
 * models and answers a landing table and a model by their own names through the real `market`
 * command.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';
import { makeTempDir, newEvent, T0 } from '../warehouse/fixtures.js';

describe('a warehouse file named history.duckdb', () => {
  let dir: string;
  let cleanup: () => void;
  let path: string;
  beforeAll(async () => {
    ({ dir, cleanup } = makeTempDir());
    path = join(dir, 'history.duckdb');
    const warehouse = await Warehouse.open(path, { clock: () => T0 + 1000 });
    await warehouse.write([{ source: 'stream', events: [newEvent('log-1', 'a', T0 + 500)] }]);
    await warehouse.close();
  });
  afterAll(() => cleanup());

  it('builds the models and answers a landing table and a model by their names', async () => {
    const run = await runMarket(['models', 'run', '--warehouse', path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/int_listing_spells\s*\|\s*incremental\s*\|\s*full/);
    const sql = await runMarket([
      'sql',
      'SELECT (SELECT count(*) FROM raw_listing_events) AS raw, (SELECT count(*) FROM int_listing_spells) AS spells',
      '--format',
      'json',
      '--warehouse',
      path,
    ]);
    expect(sql.code, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout)).toEqual([{ raw: 1, spells: 1 }]);
  });
});
