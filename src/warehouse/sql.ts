/** SQL building blocks of the landing code: time conversions, the listing's columns, staging JSON rows. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Params } from '../shared/database.js';

/** The write in progress: one batch inside the open transaction. */
export interface LandingContext {
  connection: DuckDBConnection;
  /** Folder for the NDJSON files bulk rows are staged in. */
  stagingDir: string;
  loadId: string;
  source: string;
  /** Epoch ms of the write; every landed row carries it as `ingested_at`. */
  now: number;
  /** Adds `rows` changed in `table` to the batch's counts. */
  count(table: string, rows: number): void;
}

/** A SQL expression turning epoch milliseconds (a DOUBLE or BIGINT expression) into a UTC TIMESTAMP. */
export function msToTimestamp(expression: string): string {
  return `make_timestamp(CAST(round((${expression}) * 1000) AS BIGINT))`;
}

/** A SQL expression turning an ISO 8601 text with an offset (or Z) into a UTC TIMESTAMP. */
export function isoToTimestamp(expression: string): string {
  return `(CAST(${expression} AS TIMESTAMPTZ) AT TIME ZONE 'UTC')`;
}

/** The SQL type of a Listing as the contract defines it (timestamps kept as ISO text). */
export const LISTING_TYPE =
  'STRUCT(id VARCHAR, market_hash_name VARCHAR, wear VARCHAR, doppler_phase VARCHAR, float_value DOUBLE, ' +
  'paint_seed INTEGER, stickers STRUCT(name VARCHAR, image VARCHAR, slot INTEGER, wear DOUBLE)[], ' +
  'price_usd DECIMAL(18,2), category VARCHAR, rarity VARCHAR, image VARCHAR, inspect_link VARCHAR, ' +
  'tradable BOOLEAN, tradable_at VARCHAR, delivery VARCHAR, refund_percent DOUBLE, listed_at VARCHAR)';

/**
 * The JSON structure of a Listing for DuckDB's `from_json_strict`: every key must be there (null
 * allowed) and every value must cast to its type, else the statement fails; other keys are ignored.
 */
export const LISTING_JSON_STRUCTURE = JSON.stringify({
  id: 'VARCHAR',
  market_hash_name: 'VARCHAR',
  wear: 'VARCHAR',
  doppler_phase: 'VARCHAR',
  float_value: 'DOUBLE',
  paint_seed: 'INTEGER',
  stickers: [{ name: 'VARCHAR', image: 'VARCHAR', slot: 'INTEGER', wear: 'DOUBLE' }],
  price_usd: 'DECIMAL(18,2)',
  category: 'VARCHAR',
  rarity: 'VARCHAR',
  image: 'VARCHAR',
  inspect_link: 'VARCHAR',
  tradable: 'BOOLEAN',
  tradable_at: 'VARCHAR',
  delivery: 'VARCHAR',
  refund_percent: 'DOUBLE',
  listed_at: 'VARCHAR',
});

/** The listing's columns in the landing tables (after `listing_id`), in table order. */
export const LISTING_COLUMNS = [
  'market_hash_name',
  'wear',
  'doppler_phase',
  'float_value',
  'paint_seed',
  'stickers',
  'price_usd',
  'category',
  'rarity',
  'image',
  'inspect_link',
  'tradable',
  'tradable_at',
  'delivery',
  'refund_percent',
  'listed_at',
] as const;

/** Select items reading the listing's columns from a struct expression of {@link LISTING_TYPE}. */
export function selectListingColumns(struct: string): string {
  return LISTING_COLUMNS.map((column) => {
    const field = `${struct}.${column}`;
    if (column === 'tradable_at' || column === 'listed_at') return `${isoToTimestamp(field)} AS ${column}`;
    return `${field} AS ${column}`;
  }).join(', ');
}

/** The listing's column names, comma-separated, optionally prefixed (`prefix.column`). */
export function listingColumnList(prefix?: string): string {
  return LISTING_COLUMNS.map((c) => (prefix ? `${prefix}.${c}` : c)).join(', ');
}

/**
 * A FROM item that unnests `$param` (a JSON array of objects shaped by `structure`) into one
 * struct column `r`. Parsing is strict: a value of the wrong type or a missing key is an error.
 */
export function unnestJson(param: string, structure: unknown): string {
  const shape = JSON.stringify([structure]).replaceAll("'", "''");
  return `(SELECT unnest(from_json_strict($${param}, '${shape}')) AS r)`;
}

/** The first row of each key, in order: duplicates within one batch land once, as their first occurrence. */
export function firstOfEachKey<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const k = key(row);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Runs a statement inside the batch and returns how many rows it changed. */
export async function run(context: LandingContext, sql: string, params: Params = {}): Promise<number> {
  const result = await context.connection.run(sql, params);
  return result.rowsChanged;
}
