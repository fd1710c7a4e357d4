/**
 * A store's manifest, the JSON file that says which parquet files hold its rows: replaced whole and
 * durably (the last write of each change, after every file it lists), and read strictly: a manifest
 * that does not parse is an error naming the file, never taken as an empty one (which would drop
 * every file it listed from the store's truth).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { z } from 'zod';
import { writeDurably } from './durable-files.js';

/** A manifest that exists but does not parse, or does not have the store's shape. */
export class ManifestUnreadableError extends Error {
  override readonly name = 'ManifestUnreadableError';
  constructor(
    /** The manifest file. */
    readonly file: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `cannot read the manifest ${file}: ${reason}; it lists the store's files, so nothing is written over it: restore it from a backup, or move the folder aside to start a new one`,
      options,
    );
  }
}

/** The manifest in `file` as `schema` reads it, or null when there is none yet. */
export async function readManifestFile<T extends z.ZodType>(
  file: string,
  schema: T,
): Promise<z.output<T> | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ManifestUnreadableError(file, `not JSON (${(cause as Error).message})`, { cause });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the top level';
    throw new ManifestUnreadableError(file, `${where}: ${issue?.message ?? 'not the expected shape'}`);
  }
  return parsed.data;
}

/** Replaces `file` with `value` as indented JSON, durably (temp file, fsync, rename, fsync of the folder). */
export async function writeManifestFile(file: string, value: unknown): Promise<void> {
  await writeDurably(file, (temp) => writeFile(temp, `${JSON.stringify(value, null, 2)}\n`));
}
