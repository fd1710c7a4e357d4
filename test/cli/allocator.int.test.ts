/**
 * DuckDB's allocator as `market` sets it before any command opens a file: one jemalloc arena and
 * no per-thread caches, what the environment gives coming after (jemalloc takes an option's last
 * value). Read from jemalloc's own statistics, which `stats_print` writes to stderr at exit.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/index.js';
import { runMarket } from '../helpers/cli.js';

let dir: string;
let warehouse: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-cli-allocator-'));
  warehouse = join(dir, 'warehouse.duckdb');
  await (await Warehouse.open(warehouse)).close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `market sql` on the warehouse with `conf` in the environment: its answer and jemalloc's options. */
async function sqlWith(conf: string) {
  const run = await runMarket(['sql', 'SELECT 42 AS n', '--format', 'csv', '--warehouse', warehouse], {
    DUCKDB_JE_MALLOC_CONF: conf,
  });
  const option = (name: string) => new RegExp(`opt\\.${name}: (\\S+)\\n`).exec(run.stderr)?.[1];
  return { code: run.code, stdout: run.stdout, narenas: option('narenas'), tcache: option('tcache') };
}

// DuckDB's builds allocate through jemalloc on Linux alone.
describe.skipIf(process.platform !== 'linux')("DuckDB's allocator", () => {
  it('has one arena and no thread caches in a command', async () => {
    expect(await sqlWith('stats_print:true')).toEqual({
      code: 0,
      stdout: 'n\n42\n',
      narenas: '1',
      tcache: 'false',
    });
  });

  it("takes the environment's settings over the command's", async () => {
    expect(await sqlWith('narenas:2,tcache:true,stats_print:true')).toMatchObject({
      code: 0,
      narenas: '2',
      tcache: 'true',
    });
  });
});
