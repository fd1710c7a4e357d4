/** Small conversions between the webhook stores' records and DuckDB values. */

/** SQL of a timestamp from epoch ms in `expression` (a column or a `$param`), NULL staying NULL. */
export function timestampOf(expression: string): string {
  return `CASE WHEN ${expression} IS NULL THEN NULL ELSE make_timestamp(CAST(${expression} AS BIGINT) * 1000) END`;
}

/** A number, or null for SQL NULL. */
export const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A string, or null for SQL NULL. */
export const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
