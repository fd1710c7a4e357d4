import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findMigrationsDir, findSqlDir, Warehouse } from '../../src/warehouse/index.js';
import { makeTempDir } from './fixtures.js';

/**
 * A warehouse of the typed landing layout: the real collector (commit 752a3c1, before raw landing)
 * against the real service under churn, its models built, exported with DuckDB's EXPORT DATABASE.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'legacy-warehouse');

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

/** Rebuilds the exported file as it was: its schema, then its rows. */
async function importFixture(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    // The tables; the view models are built again from their SQL (unchanged since) by the caller.
    const statements = readFileSync(join(FIXTURE, 'schema.sql'), 'utf8').split(/;\n/);
    for (const statement of statements.filter((s) => s.startsWith('CREATE TABLE')))
      await connection.run(statement);
    await connection.run(readFileSync(join(FIXTURE, 'load.sql'), 'utf8').replaceAll('{{dir}}', FIXTURE));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Every row of `relation` as JSON lines, sorted: the same rows compare equal whatever their order. */
async function rowsOf(read: (sql: string) => Promise<Record<string, unknown>[]>, relation: string) {
  const rows = await read(`SELECT * FROM ${relation}`);
  return rows.map((r) => JSON.stringify(r)).sort();
}

describe('a warehouse of the typed landing layout', () => {
  it('migrates without losing a row, and the live set, events and models give the same answers', async () => {
    const path = join(dir, 'warehouse.duckdb');
    await importFixture(path);
    // Before: the file as the typed layout's code left it, every model of that time rebuilt on it
    // (the stored tables were built a moment before the collector's last writes).
    const layout = join(dir, 'migrations-008');
    mkdirSync(layout);
    for (const file of readdirSync(findMigrationsDir()).filter((f) => f < '009'))
      writeFileSync(join(layout, file), readFileSync(join(findMigrationsDir(), file)));
    // The models as that layout had them: staging read the typed listing_events table.
    const oldModels = join(dir, 'models-typed-layout');
    mkdirSync(oldModels);
    for (const file of readdirSync(findSqlDir('models')).filter((f) => f.endsWith('.sql'))) {
      if (file === 'stg_listing_events.sql') continue;
      const sql = readFileSync(join(findSqlDir('models'), file), 'utf8')
        .replace('-- depends_on: stg_listing_events\n', '')
        .replaceAll('FROM stg_listing_events', 'FROM listing_events');
      writeFileSync(join(oldModels, file), sql);
    }
    const old = await Warehouse.open(path, { migrationsDir: layout, modelsDir: oldModels });
    const before = new Map<string, string[]>();
    const models = new Set<string>();
    try {
      for (const row of await old.query('SELECT DISTINCT model FROM model_runs'))
        models.add(String(row.model));
      await old.refreshModels({ select: [...models], fullRefresh: true });
      const read = (sql: string) => old.query(sql);
      for (const relation of ['listing_events', 'live_listings', ...models])
        before.set(relation, await rowsOf(read, relation));
    } finally {
      await old.close();
    }
    expect(before.get('listing_events')?.length).toBeGreaterThan(100);
    expect(before.get('live_listings')?.length).toBeGreaterThan(400);
    expect(models.size).toBeGreaterThan(10);

    const warehouse = await Warehouse.open(path);
    try {
      const read = (sql: string) => warehouse.query(sql);
      expect(await rowsOf(read, 'legacy_live_listings')).toEqual(before.get('live_listings'));
      expect(await rowsOf(read, 'listing_events')).toEqual(before.get('listing_events'));
      expect(await rowsOf(read, 'live_listings')).toEqual(before.get('live_listings'));
      await warehouse.refreshModels({ fullRefresh: true });
      for (const model of models) {
        expect(await rowsOf(read, model), model).toEqual(before.get(model));
      }
    } finally {
      await warehouse.close();
    }
  });
});
