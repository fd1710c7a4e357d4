/** Bulk rows reach DuckDB through its Appender: straight into a temp table of the open transaction, no text in between. */
import type { DuckDBAppender } from '@duckdb/node-api';
import { type LandingContext, run } from './sql.js';

/**
 * Creates (or replaces) the temp table `table` with `columns` (name to SQL type) and appends
 * `rows` to it, `write` appending one row's values in column order. The table belongs to the
 * transaction of `context`: a rollback leaves nothing.
 *
 * @example
 * await appendToTemp(context, '_wh_rows', { id: 'VARCHAR', n: 'INTEGER' }, rows, (a, row) => {
 *   a.appendVarchar(row.id);
 *   a.appendInteger(row.n);
 * });
 */
export async function appendToTemp<T>(
  context: LandingContext,
  table: string,
  columns: Readonly<Record<string, string>>,
  rows: readonly T[],
  write: (appender: DuckDBAppender, row: T, index: number) => void,
): Promise<void> {
  const definition = Object.entries(columns)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
  await run(context, `CREATE OR REPLACE TEMP TABLE ${table} (${definition})`);
  const appender = await context.connection.createAppender(table, null, 'temp');
  try {
    for (let i = 0; i < rows.length; i++) {
      write(appender, rows[i] as T, i);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/** Appends a VARCHAR or NULL. */
export function appendText(appender: DuckDBAppender, value: string | null | undefined): void {
  if (value === null || value === undefined) appender.appendNull();
  else appender.appendVarchar(value);
}
