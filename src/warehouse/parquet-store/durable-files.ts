/**
 * Files that survive a crash or a power loss whole or not at all: written beside their place under
 * a name readers skip (a leading dot), fsynced, renamed over the place, and the folder fsynced so
 * the rename itself is on disk. Both parquet stores (the lake and the exports) write through here.
 */
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The temp name beside `target`: hidden from Hive-style readers (pyarrow, Spark, DuckDB globs of
 * `*.parquet`). Fixed, so a crash leaves at most one per target, written over by the next try: each
 * store has one writer at a time (the export lock, the warehouse's one lake writer).
 */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp`);
}

/** Flushes `path` (a file, or a folder after a rename in it) to disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves the written file `from` over `target` durably: `from` fsynced, renamed (replacing what is
 * there; both on one filesystem), and the target's folder fsynced. Creates the target's folder.
 */
export async function moveIntoPlace(from: string, target: string): Promise<void> {
  await syncPath(from);
  await mkdir(dirname(target), { recursive: true });
  await rename(from, target);
  await syncPath(dirname(target));
}

/**
 * Writes `target` through a temp file beside it: `write` fills the temp path, which then moves
 * over `target` ({@link moveIntoPlace}). The temp file is removed when `write` fails.
 */
export async function writeDurably(target: string, write: (temp: string) => Promise<void>): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  try {
    await write(temp);
    await moveIntoPlace(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
