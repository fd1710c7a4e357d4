/**
 * `<lake>/manifest.json`, the truth of the lake: per relation its files (path, day, rows, bytes),
 * and the moves that wrote them. Replaced atomically (written aside, fsynced, renamed) as the last
 * step of a move's writing, so a reader parses a whole one; a file it does not list is a leftover.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { readManifestFile, writeManifestFile } from '../parquet-store/index.js';

/** The manifest's file name inside the lake folder. */
export const LAKE_MANIFEST = 'manifest.json';

const lakeFileSchema = z.object({
  /**
   * `<relation>/date=YYYY-MM-DD/part-<n>.parquet` (a day), or `<relation>/month=YYYY-MM/part-<n>.parquet`
   * (a month's days merged), relative to the lake folder, with `/`.
   */
  path: z.string(),
  /** The day, `YYYY-MM-DD`; a month file's first day. */
  date: z.string(),
  /** A month file's last day, `YYYY-MM-DD` (it holds the days from `date` through it); absent for a day. */
  through: z.string().optional(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
/** One parquet file of the lake. */
export type LakeFile = z.infer<typeof lakeFileSchema>;

const lakeMoveSchema = z.object({
  id: z.string(),
  /** Every row landed before this instant (ISO 8601) moved. */
  before: z.string(),
  /** When the move wrote its manifest (ISO 8601). */
  at: z.string(),
  /**
   * Set on a rebuild's entry: the models rebuilt in full whose files it replaced with a new
   * generation (every day before their bound); `before` is then the last move's, unchanged.
   */
  rebuilt: z.array(z.string()).optional(),
  /**
   * Set on a merge's entry: the relations whose days of months already moved it merged into one
   * file a month (the same rows); `before` is then the last move's, unchanged.
   */
  merged: z.array(z.string()).optional(),
});
/** One move (or rebuild) that wrote the lake. */
export type LakeMove = z.infer<typeof lakeMoveSchema>;

const lakeManifestSchema = z.object({
  format: z.literal(1),
  relations: z.record(z.string(), z.array(lakeFileSchema)),
  moves: z.array(lakeMoveSchema),
});
/** The whole manifest. */
export type LakeManifest = z.infer<typeof lakeManifestSchema>;

/** The manifest of the lake at `dir`, or an empty one when it has none yet; one that does not parse throws, naming it. */
export async function readLakeManifest(dir: string): Promise<LakeManifest> {
  const read = await readManifestFile(join(dir, LAKE_MANIFEST), lakeManifestSchema);
  return read ?? { format: 1, relations: {}, moves: [] };
}

/** Replaces `<dir>/manifest.json` with `manifest`: a temp file beside it, fsynced, renamed over it. */
export async function writeLakeManifest(dir: string, manifest: LakeManifest): Promise<void> {
  const relations = Object.fromEntries(
    Object.entries(manifest.relations).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  await writeManifestFile(join(dir, LAKE_MANIFEST), { ...manifest, relations });
}
