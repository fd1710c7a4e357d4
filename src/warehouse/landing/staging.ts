/** Bulk rows reach DuckDB as a temporary NDJSON file read back with `read_json`, which parses in parallel. */
import { open, readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Params } from '../../shared/database.js';
import { type LandingContext, run } from './sql.js';

/** Lines written to the staging file per system call. */
const LINES_PER_WRITE = 2000;

/** Ending of staging files; only files with it are ever deleted from the staging folder. */
const SUFFIX = '.staged.ndjson';

let fileCounter = 0;

/** Deletes the staging files in `dir` (left by a crash, or at close) and, with `removeDir`, the folder if then empty. */
export async function clearStagingDir(dir: string, removeDir: boolean): Promise<void> {
  const names = await readdir(dir).catch(() => []);
  await Promise.all(names.filter((n) => n.endsWith(SUFFIX)).map((n) => rm(join(dir, n), { force: true })));
  if (removeDir) await rmdir(dir).catch(() => undefined);
}

/**
 * Writes `rows` as NDJSON in the staging folder and calls `use` with a FROM item reading them back
 * (`read_json($staged, …)` with the given column types) and its parameters; deletes the file after.
 *
 * @example
 * await withStagedRows(context, rows, { id: 'VARCHAR', n: 'INTEGER' }, (from, params) =>
 *   run(context, `INSERT INTO t SELECT id, n FROM ${from}`, params));
 */
export async function withStagedRows<T>(
  context: LandingContext,
  rows: readonly unknown[],
  columns: Readonly<Record<string, string>>,
  use: (from: string, params: Params) => Promise<T>,
): Promise<T> {
  fileCounter += 1;
  const file = join(context.stagingDir, `${context.loadId}-${fileCounter}${SUFFIX}`);
  try {
    await writeNdjson(file, rows);
    const types = Object.entries(columns)
      .map(([name, type]) => `${name}: '${type}'`)
      .join(', ');
    return await use(`read_json($staged, format = 'newline_delimited', columns = {${types}})`, {
      staged: file,
    });
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * Stages `rows` and keeps the fresh ones in the temp table `table` (replaced if present): `select`
 * is the SELECT list shaping the staged columns, and a shaped row `s` is dropped when the subquery
 * `landed` finds it landed already.
 *
 * @example
 * await stageFreshRows(context, '_wh_fx', rows, { c: 'VARCHAR' }, 'c AS currency',
 *   'SELECT 1 FROM fx_rates f WHERE f.currency = s.currency');
 */
export async function stageFreshRows(
  context: LandingContext,
  table: string,
  rows: readonly unknown[],
  columns: Readonly<Record<string, string>>,
  select: string,
  landed: string,
): Promise<void> {
  await withStagedRows(context, rows, columns, (from, params) =>
    run(
      context,
      `CREATE OR REPLACE TEMP TABLE ${table} AS
       SELECT s.* FROM (SELECT ${select} FROM ${from}) s
       WHERE NOT EXISTS (${landed})`,
      params,
    ),
  );
}

async function writeNdjson(file: string, rows: readonly unknown[]): Promise<void> {
  const handle = await open(file, 'w');
  try {
    for (let start = 0; start < rows.length; start += LINES_PER_WRITE) {
      const lines = rows.slice(start, start + LINES_PER_WRITE).map((row) => JSON.stringify(row));
      await handle.write(`${lines.join('\n')}\n`);
    }
  } finally {
    await handle.close();
  }
}
