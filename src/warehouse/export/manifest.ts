/**
 * `<to>/manifest.json`: per exported model, its files (path, day, rows, bytes), total rows, schema
 * and when it was exported. Written durably through the parquet store's writer (temp file, fsync,
 * rename), after the files it lists, so a reader always parses a whole one that names files on disk.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { readManifestFile, writeManifestFile } from '../parquet-store/index.js';

/** The manifest's file name inside the export folder. */
export const MANIFEST = 'manifest.json';

/** One parquet file of a model. */
export const manifestFileSchema = z.object({
  /** Relative to the export folder, with `/`: `<model>/date=YYYY-MM-DD/part-0.parquet`. */
  path: z.string(),
  date: z.string(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

/** One exported model. */
export const manifestModelSchema = z.object({
  /** The model's export date expression, or `snapshot`. */
  export: z.string(),
  exported_at: z.string(),
  partition_by: z.literal('date'),
  /** Columns of a hive-partitioned read, the `date` partition column last. */
  schema: z.array(z.object({ name: z.string(), type: z.string() })),
  /** Sum of the files' rows. */
  rows: z.number().int().nonnegative(),
  files: z.array(manifestFileSchema),
});
export type ManifestModel = z.infer<typeof manifestModelSchema>;

/** The whole manifest. */
export const manifestSchema = z.object({
  format: z.literal(1),
  updated_at: z.string(),
  models: z.record(z.string(), manifestModelSchema),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The manifest of `to`, or an empty one when it has none yet; one that does not parse throws, naming it. */
export async function readManifest(to: string): Promise<Manifest> {
  const read = await readManifestFile(join(to, MANIFEST), manifestSchema);
  return read ?? { format: 1, updated_at: new Date(0).toISOString(), models: {} };
}

/** Replaces `<to>/manifest.json` with `manifest` durably (temp file, fsync, rename, fsync of the folder). */
export async function writeManifest(to: string, manifest: Manifest): Promise<void> {
  const models = Object.fromEntries(Object.entries(manifest.models).sort(([a], [b]) => (a < b ? -1 : 1)));
  await writeManifestFile(join(to, MANIFEST), { ...manifest, models });
}
