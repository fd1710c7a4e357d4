/**
 * `market sql`: ad hoc SQL on the warehouse. While a collector runs, the query goes through it
 * (read-only); otherwise the file is opened read-only here. Prints a table, CSV or JSON, or writes
 * the rows to a parquet file (`--out`).
 */
import { resolve } from 'node:path';
import { Warehouse } from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';

interface SqlFlags {
  warehouse?: string;
  format?: string;
  out?: string;
}

/** Runs one query and prints its rows, or writes them to the `--out` parquet file. */
export async function sql(query: string, flags: SqlFlags): Promise<void> {
  const format = flags.format ?? 'table';
  if (!['table', 'csv', 'json'].includes(format)) throw new CliError('--format is table, csv or json');
  if (flags.out !== undefined && !flags.out.endsWith('.parquet'))
    throw new CliError('--out writes parquet: give a file name ending in .parquet');
  const warehouse = flags.warehouse ?? process.env.MARKET_WAREHOUSE ?? 'data/warehouse.duckdb';
  if (flags.out !== undefined) {
    const out = resolve(flags.out);
    const rows = await runQuery(warehouse, query, out);
    process.stdout.write(`wrote ${rows as number} rows to ${out}\n`);
    return;
  }
  const rows = await runQuery(warehouse, query);
  process.stdout.write(render(rows as Record<string, unknown>[], format));
}

/** The query's rows, or (with `out`) how many rows it wrote to that parquet file. */
async function runQuery(
  path: string,
  query: string,
  out?: string,
): Promise<Record<string, unknown>[] | number> {
  const control = await ControlClient.find(path);
  if (control) return out ? control.queryToParquet(query, out) : control.query(query);
  let warehouse: Warehouse;
  try {
    warehouse = await Warehouse.open(path, { readOnly: true });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  try {
    return out ? await warehouse.queryToParquet(query, out) : await warehouse.query(query);
  } catch (error) {
    throw new CliError((error as Error).message);
  } finally {
    await warehouse.close();
  }
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
