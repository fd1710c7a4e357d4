import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingSchema } from '../../src/contract/listing.js';
import { Warehouse } from '../../src/warehouse/index.js';
import { LISTING_FIELDS } from '../../src/warehouse/typing/listing-shape.js';

/** Every relation with the listing's columns: landing tables, the derived views, the staging model. */
const RELATIONS = [
  'listing_observations',
  'listing_observations_typed',
  'listing_events',
  'listing_events_typed',
  'live_listings',
  'stg_listing_events',
];

describe("the listing's shape", () => {
  let warehouse: Warehouse;
  beforeAll(async () => {
    warehouse = await Warehouse.open(':memory:');
    await warehouse.refreshModels({ select: ['stg_listing_events'] });
  });
  afterAll(() => warehouse.close());

  it('types every key the contract requires but the id, in schema order', () => {
    const required = Object.entries(listingSchema.shape)
      .filter(([name, schema]) => name !== 'id' && !schema.safeParse(undefined).success)
      .map(([name]) => name);
    expect(LISTING_FIELDS.map((f) => f.name)).toEqual(required);
    expect(LISTING_FIELDS.find((f) => f.name === 'price_usd')?.sqlType).toBe('DECIMAL(18,2)');
    expect(LISTING_FIELDS.find((f) => f.name === 'listed_at')?.sqlType).toBe('TIMESTAMP');
    expect(LISTING_FIELDS.find((f) => f.name === 'paint_seed')?.sqlType).toBe('INTEGER');
  });

  it.each(RELATIONS)(
    '%s has the listing columns the schema derives, with their types, in order',
    async (relation) => {
      const columns = await warehouse.query(
        `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'main' AND table_name = '${relation}' ORDER BY ordinal_position`,
      );
      const names = columns.map((c) => String(c.column_name));
      const first = names.indexOf(LISTING_FIELDS[0]?.name ?? '');
      const listing = columns.slice(first, first + LISTING_FIELDS.length);
      expect(
        listing.map((c) => [c.column_name, String(c.data_type).replaceAll(' ', '').replaceAll('"', '')]),
      ).toEqual(LISTING_FIELDS.map((f) => [f.name, f.sqlType.replaceAll(' ', '')]));
    },
  );

  it.each(['listing_events', 'listing_observations'])(
    '%s, a view over what landed raw, has the columns of the former table',
    async (relation) => {
      const columnsOf = `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'main' AND table_name = '${relation}' ORDER BY ordinal_position`;
      const former = await formerColumns(columnsOf, relation);
      expect(former.length).toBeGreaterThan(LISTING_FIELDS.length);
      expect(await warehouse.query(columnsOf)).toEqual(former);
    },
  );
});

/** The columns (`columnsOf`'s answer) of `table` as the typed layout created it (its exported schema). */
async function formerColumns(columnsOf: string, table: string): Promise<Record<string, unknown>[]> {
  const schema = readFileSync(
    join(import.meta.dirname, '..', 'fixtures', 'legacy-warehouse', 'schema.sql'),
    'utf8',
  );
  const create = schema.split(/;\n/).find((s) => s.startsWith(`CREATE TABLE ${table}(`));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(String(create));
    return (await connection.runAndReadAll(columnsOf)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
