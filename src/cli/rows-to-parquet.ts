/**
 * `market sql --out file.parquet` through a running collector: the CLI writes the file itself from
 * the rows it receives (the collector never writes where a caller says). Rows are spooled to an
 * NDJSON file beside the target, then a DuckDB of the CLI's own reads them back with the
 * query's column types and writes the parquet file aside, renamed over the target when complete.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { DuckDBInstance, type Json } from '@duckdb/node-api';
import type { RowsToPrint } from './sql-output.js';

/**
 * Types whose JSON form (see `jsonSafeConverter`) DuckDB does not read back as the same type: such
 * a column, or one holding such a type, is written as JSON text.
 */
const KEPT_AS_JSON = /\b(MAP|INTERVAL|BLOB|UNION|BIT|VARIANT|TIME WITH TIME ZONE)\b/;

/** Writes `rows` to the parquet file `out` and returns how many it holds. */
export async function writeRowsToParquet(rows: RowsToPrint, out: string): Promise<number> {
  const spool = `${out}.${randomUUID()}.ndjson`;
  const aside = `${out}.${randomUUID()}.tmp`;
  try {
    const names = dedupe(rows.columns.map((c) => c.name));
    const count = await spoolRows(names, rows.batches, spool);
    const columns = names
      .map((name, i) => {
        const type = rows.columns[i]?.type ?? 'JSON';
        return `${sqlString(name)}: ${sqlString(KEPT_AS_JSON.test(type) ? 'JSON' : type)}`;
      })
      .join(', ');
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    try {
      const connection = await instance.connect();
      await connection.run("SET TimeZone = 'UTC'");
      await connection.run(
        `COPY (SELECT * FROM read_json(${sqlString(spool)}, format = 'newline_delimited', columns = {${columns}}))
         TO ${sqlString(aside)} (FORMAT parquet)`,
      );
    } finally {
      instance.closeSync();
    }
    await rename(aside, out);
    return count;
  } finally {
    await rm(spool, { force: true });
    await rm(aside, { force: true });
  }
}

/** Writes the rows as NDJSON objects keyed by `names`, waiting for the disk as it goes. */
async function spoolRows(names: string[], batches: AsyncIterable<Json[][]>, file: string): Promise<number> {
  const stream = createWriteStream(file);
  let count = 0;
  try {
    for await (const batch of batches) {
      count += batch.length;
      const text = batch
        .map((row) => `${JSON.stringify(Object.fromEntries(names.map((n, i) => [n, row[i] ?? null])))}\n`)
        .join('');
      if (!stream.write(text)) await once(stream, 'drain');
    }
  } finally {
    stream.end();
    await once(stream, 'close');
  }
  return count;
}

/** Column names made unique the way DuckDB does it (`n`, `n_1`, …), as a parquet file needs. */
function dedupe(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let i = 1; seen.has(unique); i++) unique = `${name}_${i}`;
    seen.add(unique);
    return unique;
  });
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
