/**
 * `market sql`: ad hoc SQL on the warehouse. While a collector runs, the query goes through it
 * (a single read-only SELECT, with a deadline); otherwise the file is opened read-only here. Rows
 * stream to the output as a table, CSV or JSON in bounded memory, or into a parquet file (`--out`)
 * that this process writes.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_QUERY_TIMEOUT_MS, streamQuery } from '../collector/read-only-query.js';
import { parseConfig, warehouseFlags } from './config.js';
import { ControlClient } from './control-client.js';
import { writeRowsToParquet } from './rows-to-parquet.js';
import { printRows, type RowsToPrint } from './sql-output.js';
import { withWarehouse } from './with-warehouse.js';

const sqlConfigSchema = z.object({
  ...warehouseFlags,
  format: z.enum(['table', 'csv', 'json'], { message: '--format is table, csv or json' }),
  out: z
    .string()
    .refine((v) => v.endsWith('.parquet'), '--out writes parquet: give a file name ending in .parquet')
    .optional(),
  queryTimeout: z.coerce
    .number({ message: '--query-timeout is a number of seconds' })
    .positive('--query-timeout is a number of seconds above 0')
    .optional(),
});
type SqlConfig = z.infer<typeof sqlConfigSchema>;

/** Runs one query and prints its rows, or writes them to the `--out` parquet file. */
export async function sql(query: string, flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(sqlConfigSchema, flags);
  const out = config.out === undefined ? undefined : resolve(config.out);
  const use = async (rows: RowsToPrint) => {
    if (out === undefined) return void (await printRows(rows, config.format, process.stdout));
    const count = await writeRowsToParquet(rows, out);
    process.stdout.write(`wrote ${count} rows to ${out}\n`);
  };
  const timeoutMs = config.queryTimeout === undefined ? undefined : Math.round(config.queryTimeout * 1000);
  const control = await ControlClient.find(config.warehouse);
  if (control) return use(await control.streamQuery(query, timeoutMs));
  await queryDirectly(config, query, timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS, use, out);
}

/** The query on the file opened read-only here, with the same deadline as through the collector. */
function queryDirectly(
  config: SqlConfig,
  query: string,
  timeoutMs: number,
  use: (rows: RowsToPrint) => Promise<void>,
  out: string | undefined,
): Promise<void> {
  return withWarehouse(config, { readOnly: true }, async (warehouse) => {
    if (out !== undefined) {
      const count = await warehouse.queryToParquet(query, out);
      process.stdout.write(`wrote ${count} rows to ${out}\n`);
      return;
    }
    await warehouse.withConnection((connection) =>
      streamQuery(connection, query, timeoutMs, (rows) =>
        use({ columns: rows.columns, batches: rows.chunks() }),
      ),
    );
  });
}
