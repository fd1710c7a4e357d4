/** SQL building blocks of the landing code: time conversions, the listing's columns, staging JSON rows. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Params } from '../../shared/database.js';
import { LISTING_FIELDS } from '../typing/listing-shape.js';

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

/** Select items reading the listing's columns from a struct expression of `LISTING_TYPE`. */
export function selectListingColumns(struct: string): string {
  return LISTING_FIELDS.map(({ name, kind }) => {
    const field = `${struct}.${name}`;
    return kind === 'timestamp' ? `${isoToTimestamp(field)} AS ${name}` : `${field} AS ${name}`;
  }).join(', ');
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
