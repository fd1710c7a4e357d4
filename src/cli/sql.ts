/**
 * `market sql`: ad hoc SQL on the warehouse. While a collector runs, the query goes through it
 * (read-only); otherwise the file is opened read-only here. Prints a table, CSV or JSON, or writes
 * the rows to a parquet file (`--out`).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseConfig, warehouseFlags } from './config.js';
import { ControlClient } from './control-client.js';
import { type WarehouseFlags, withWarehouse } from './with-warehouse.js';

const sqlConfigSchema = z.object({
  ...warehouseFlags,
  format: z.enum(['table', 'csv', 'json'], { message: '--format is table, csv or json' }),
  out: z
    .string()
    .refine((v) => v.endsWith('.parquet'), '--out writes parquet: give a file name ending in .parquet')
    .optional(),
});

/** Runs one query and prints its rows, or writes them to the `--out` parquet file. */
export async function sql(query: string, flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(sqlConfigSchema, flags);
  if (config.out !== undefined) {
    const out = resolve(config.out);
    const rows = await runQuery(config, query, out);
    process.stdout.write(`wrote ${rows as number} rows to ${out}\n`);
    return;
  }
  const rows = await runQuery(config, query);
  process.stdout.write(render(rows as Record<string, unknown>[], config.format));
}

/** The query's rows, or (with `out`) how many rows it wrote to that parquet file. */
async function runQuery(
  flags: WarehouseFlags,
  query: string,
  out?: string,
): Promise<Record<string, unknown>[] | number> {
  const control = await ControlClient.find(flags.warehouse);
  if (control) return out ? control.queryToParquet(query, out) : control.query(query);
  return withWarehouse<Record<string, unknown>[] | number>(flags, { readOnly: true }, (warehouse) =>
    out ? warehouse.queryToParquet(query, out) : warehouse.query(query),
  );
}

/** Renders rows as an aligned table, CSV or JSON. */
export function render(rows: readonly Record<string, unknown>[], format: string): string {
  const columns = Object.keys(rows[0] ?? {});
  const text = (v: unknown) =>
    v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (format === 'json')
    return `${JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}\n`;
  if (format === 'csv') {
    const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    return `${[columns.map(quote).join(','), ...rows.map((r) => columns.map((c) => quote(text(r[c]))).join(','))].join('\n')}\n`;
  }
  const widths = columns.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => text(r[c]).length))));
  const line = (cells: string[]) =>
    cells.map((cell, i) => cell.slice(0, widths[i]).padEnd(widths[i] ?? 0)).join(' | ');
  return `${[line(columns), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map((r) => line(columns.map((c) => text(r[c]))))].join('\n')}\n(${rows.length} rows)\n`;
}
