/** SQL for the webhook stores' values: timestamps from the records' epoch ms. */

/** SQL of a timestamp from epoch ms in `expression` (a column or a `$param`), NULL staying NULL. */
export function timestampOf(expression: string): string {
  return `CASE WHEN ${expression} IS NULL THEN NULL ELSE make_timestamp(CAST(${expression} AS BIGINT) * 1000) END`;
}
