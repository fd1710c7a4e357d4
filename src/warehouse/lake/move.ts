/**
 * A move of every row landed before an instant from the warehouse file into the lake, in three
 * steps, each safe to be killed in: (1) copy, per relation and day, the rows to a new parquet file
 * (`<relation>/date=YYYY-MM-DD/part-<n>.parquet`, zstd); (2) replace the manifest, listing them and
 * the move; (3) in one transaction of the file, delete the moved rows and point the views at the
 * new files and bounds. Until (3) commits readers read the rows in the file and the former files;
 * after it, the new files and the rows left. A move killed after (2) is finished by the next open
 * or move ({@link finishMove}); files of one killed before (2) are removed by the next move. A
 * full build of a moved model waiting to reach the lake is published before a move copies
 * anything (`rebuild.ts`), so its rebuilt days are never deleted unread.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { crashPoint } from './crash-point.js';
import { recordPendingEventRanges } from './event-ranges.js';
import { boundOf, finishMove, type MoveContext, readBounds, recordFiles } from './finish-move.js';
import { copyDays, removeLeftovers } from './lake-files.js';
import { LakeInputError } from './lake-input-error.js';
import { createWholeViews, hasLake, hotTable } from './lake-views.js';
import { type LakeFile, type LakeManifest, readLakeManifest, writeLakeManifest } from './manifest.js';
import { mergeMonths } from './merge-months.js';
import { publishRebuilds } from './rebuild.js';
import type { LakeRelation } from './relations.js';
import { sortFileTables } from './sort-file-tables.js';
import { connectionRunner, type SqlRunner } from './sql-runner.js';

/** What a move did. */
export interface LakeMoveSummary {
  /** The move's id (the manifest's), or null when no row was old enough and nothing was written. */
  moveId: string | null;
  /** The instant, ISO 8601. */
  before: string;
  /** Files and rows written per relation. */
  relations: Record<string, { files: number; rows: number }>;
  /** Per relation, the months (`YYYY-MM`) whose day files were merged into one file after the move. */
  merged: Record<string, string[]>;
}

/**
 * Moves every row landed before `before` (epoch ms) into the lake: each landing table's rows
 * landed before it, each moving model's rows of the whole days before it. Finishes a move a kill
 * interrupted first.
 */
export async function moveToLake(context: MoveContext, before: number): Promise<LakeMoveSummary> {
  if (!Number.isFinite(before)) throw new LakeInputError('the instant to move before is not a time');
  const now = context.clock();
  if (before > now)
    throw new LakeInputError(
      `cannot move rows landed before ${new Date(before).toISOString()}: that is after now (${new Date(now).toISOString()}), and rows landing until then would be hidden`,
    );
  await mkdir(context.dir, { recursive: true });
  await finishMove(context, await readLakeManifest(context.dir));
  // A model rebuilt in full holds the lake's days in the file: they go to the lake first.
  await publishRebuilds(context);
  let manifest = await readLakeManifest(context.dir);
  await removeLeftovers(context.dir, manifest, context.relations);
  const moveId = randomUUID();
  const summary: LakeMoveSummary = {
    moveId,
    before: new Date(before).toISOString(),
    relations: {},
    merged: {},
  };
  const written: Record<string, LakeFile[]> = {};
  await context.withConnection(async (connection) => {
    const sql = connectionRunner(connection);
    const bounds = await readBounds(sql);
    for (const relation of context.relations) {
      const files = await copyRelation(
        sql,
        context.dir,
        manifest,
        relation,
        bounds.get(relation.name),
        before,
      );
      if (files === null) continue;
      written[relation.name] = files;
      summary.relations[relation.name] = { files: files.length, rows: files.reduce((n, f) => n + f.rows, 0) };
    }
  });
  crashPoint('copied');
  // No row old enough: nothing to list, and no bound to raise.
  if (Object.values(written).every((files) => files.length === 0)) {
    // The file's tables kept in order get the rows their increments appended since in place.
    if ((await sortFileTables(context)).length > 0) await checkpoint(context);
    // A month a kill or a full build left in days is merged still.
    return { ...summary, moveId: null, merged: await mergeMonths(context) };
  }
  const relations = { ...manifest.relations };
  for (const [name, files] of Object.entries(written))
    relations[name] = [...(relations[name] ?? []), ...files];
  manifest = {
    format: 1,
    relations,
    moves: [...manifest.moves, { id: moveId, before: summary.before, at: new Date(now).toISOString() }],
  };
  await writeLakeManifest(context.dir, manifest);
  crashPoint('manifest');
  await finishMove(context, manifest);
  // As above, once the moved days left the hot tables.
  await sortFileTables(context);
  await checkpoint(context);
  return { ...summary, merged: await mergeMonths(context) };
}

/** Deleted rows leave free blocks that later writes reuse; a checkpoint frees them now. */
async function checkpoint(context: MoveContext): Promise<void> {
  await context.withConnection((connection) => connection.run('CHECKPOINT')).catch(() => undefined);
}

/**
 * Copies the rows of `relation` from its bound (a model's days before it are in the lake: a full
 * build's were published first) up to the move's, one file per day; null when it does not move
 * (a model not built yet, or a bound already there).
 */
async function copyRelation(
  sql: SqlRunner,
  dir: string,
  manifest: LakeManifest,
  relation: LakeRelation,
  bound: number | undefined,
  before: number,
): Promise<LakeFile[] | null> {
  const hot = await hotTable(sql, relation);
  const until = boundOf(relation, before);
  if (hot === null || (bound !== undefined && bound >= until)) return null;
  const from = relation.kind === 'model' && bound !== undefined ? bound : null;
  return copyDays(sql, dir, manifest, relation, hot, from, until);
}

/**
 * Opens the lake at `dir` with the file: finishes a move or rebuild a kill interrupted (and
 * publishes a rebuild waiting), then recreates the whole views with the files where `dir` has
 * them. Without a lake folder (a file in memory) or the lake's tables (a file of an older layout),
 * the views read the file alone.
 */
export async function openLake(context: Omit<MoveContext, 'dir'> & { dir: string | null }): Promise<void> {
  const { dir } = context;
  const lake = await context.transaction(async (sql) => {
    const has = await hasLake(sql);
    if (!has || dir === null) await createWholeViews(sql, context.relations);
    return has;
  });
  if (!lake || dir === null) return;
  await openLakeAt({ ...context, dir });
}

/** {@link openLake} of a file that has the lake's tables, with the lake at `context.dir`. */
async function openLakeAt(context: MoveContext): Promise<void> {
  const finished = await finishMove(context, await readLakeManifest(context.dir));
  // A rebuild killed before its manifest (or before its copy began) is published now.
  const published = await publishRebuilds(context);
  const manifest = await readLakeManifest(context.dir);
  // The files replaced by a rebuild or merge finished here go now (a publish just done removed its own).
  const last = manifest.moves.at(-1);
  if (finished && published.length === 0 && (last?.rebuilt || last?.merged))
    await removeLeftovers(context.dir, manifest, context.relations);
  await context.transaction(async (sql) => {
    await recordFiles(sql, context.dir, manifest);
    await recordPendingEventRanges(sql);
    await createWholeViews(sql, context.relations);
  });
}
