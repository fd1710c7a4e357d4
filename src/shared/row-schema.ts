/**
 * Zod types for the values DuckDB hands back (`Database.all` and `read`, in JavaScript form), so
 * that a store declares the shape of its rows once and parses each row once, instead of casting
 * field by field: a column that comes back in another shape fails loudly, naming the column.
 */
import { z } from 'zod';

/**
 * A BIGINT column (`epoch_ms`, `count(*)`, sequences, cents), which DuckDB gives as a bigint, as a
 * number. An INTEGER column is a plain `z.number()`. One exact type per column, not a union of
 * both: in `npm run bench rows` a union was as slow or slower, up to 2.3× per row.
 */
export const bigintColumn = z.bigint().transform(Number);

/** A VARCHAR column holding JSON the service wrote itself: parsed, and typed as the writer's `T`. */
export function jsonColumn<T>() {
  return z.string().transform((text) => JSON.parse(text) as T);
}

/**
 * Parses every row with `schema`; a row that does not fit throws an Error naming the table and
 * the columns (a broken invariant: the service wrote the rows).
 *
 * @example const keys = parseRows(keyRowSchema, await db.all('SELECT … FROM api_keys'), 'api_keys');
 */
export function parseRows<S extends z.ZodType>(
  schema: S,
  rows: readonly unknown[],
  table: string,
): z.output<S>[] {
  return rows.map((row) => parseRow(schema, row, table));
}

/** {@link parseRows} for one row. */
export function parseRow<S extends z.ZodType>(schema: S, row: unknown, table: string): z.output<S> {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  throw new Error(`a row of ${table} does not have the stored shape: ${z.prettifyError(parsed.error)}`, {
    cause: parsed.error,
  });
}
