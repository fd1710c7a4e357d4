/**
 * `market sql`: ad hoc SQL on the warehouse. While a collector runs, the query goes through it
 * (a single read-only SELECT, with a deadline); otherwise the file is opened read-only here. Rows
 * stream to the output as a table, CSV or JSON in bounded memory, or into a parquet file (`--out`).
 */
import { resolve } from 'node:path';
import { parseFlags } from './flags.js';
import { openWarehouse } from './open-warehouse.js';
import { sqlFlags } from './options.js';
import { printRows } from './sql-output.js';

/** Runs one query and prints its rows, or writes them to the `--out` parquet file. */
export async function sql(query: string, flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(sqlFlags, flags);
  const warehouse = await openWarehouse(config);
  if (config.out === undefined) {
    await warehouse.queryRows(query, config.queryTimeoutMs, (rows) =>
      printRows(rows, config.format, process.stdout),
    );
    return;
  }
  const out = resolve(config.out);
  const count = await warehouse.queryToParquet(query, out, config.queryTimeoutMs);
  process.stdout.write(`wrote ${count} rows to ${out}\n`);
}
