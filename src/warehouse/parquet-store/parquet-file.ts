/** One parquet file of a store, written by DuckDB's `COPY` and moved into place durably. */
import { stat } from 'node:fs/promises';
import { writeDurably } from './durable-files.js';

/** What a written file holds. */
export interface WrittenParquet {
  rows: number;
  bytes: number;
}

/**
 * COPYs the rows of `select` into the parquet file `target` (`options` are the COPY's, e.g.
 * `FORMAT parquet, COMPRESSION zstd`): into a temp file beside it first, fsynced, then renamed over
 * it, so `target` is whole or absent after a crash. `run` runs the statement and returns the rows
 * it copied.
 */
export async function copyToParquet(
  run: (statement: string) => Promise<number>,
  select: string,
  target: string,
  options = 'FORMAT parquet',
): Promise<WrittenParquet> {
  let rows = 0;
  await writeDurably(target, async (temp) => {
    rows = await run(`COPY (${select}) TO '${temp.replaceAll("'", "''")}' (${options})`);
  });
  return { rows, bytes: (await stat(target)).size };
}
