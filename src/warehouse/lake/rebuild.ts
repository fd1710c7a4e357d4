/**
 * A full build of a model that moved to the lake writes every day again into `<model>__hot`, the
 * lake's days included, and marks the model in `lake_rebuilds` in the build's transaction: its view
 * then reads that table alone, so the new build is what every reader sees. Publishing it makes
 * the lake's days that generation, in the steps of a move, each safe to be killed in: (1) copy
 * the rebuilt days before the model's bound to new files (new part numbers); (2) replace the
 * manifest, the model's files now the new ones alone, with an entry `rebuilt` in its moves; (3) in
 * one transaction of the file, delete those days from `<model>__hot`, unmark it, and point its
 * view at the new files; (4) remove the replaced files. Killed in (1), the next publish removes
 * the new files and copies again; after (2) or in (3), the next open or move finishes (3)
 * (`finishMove`); in (4), the next move removes what is left.
 */
import { randomUUID } from 'node:crypto';
import { crashPoint } from './crash-point.js';
import { finishMove, type MoveContext, readBounds } from './finish-move.js';
import { copyDays, removeLeftovers } from './lake-files.js';
import { isTable } from './lake-views.js';
import { type LakeFile, readLakeManifest, writeLakeManifest } from './manifest.js';
import { hotTableOf, lakeRelation } from './relations.js';
import { connectionRunner, type SqlRunner } from './sql-runner.js';

/** Whether the file has the table of rebuilds waiting (one migrated up to an older layout has not). */
async function hasRebuilds(sql: SqlRunner): Promise<boolean> {
  return isTable(sql, 'lake_rebuilds');
}

/** The models whose full build waits to replace their days in the lake, by name. */
export async function waitingRebuilds(sql: SqlRunner): Promise<string[]> {
  if (!(await hasRebuilds(sql))) return [];
  const rows = await sql.all<{ relation: string }>('SELECT relation FROM lake_rebuilds ORDER BY relation');
  return rows.map((r) => r.relation);
}

/**
 * Marks `model` as rebuilt in full by run `runId`, in the build's transaction: its days before the
 * bound are in `<model>__hot` and its view reads them there until they are published.
 */
export async function markRebuilt(sql: SqlRunner, model: string, runId: string): Promise<void> {
  if (!(await hasRebuilds(sql))) return;
  // One row a model, without a key: DuckDB may refuse a delete and an insert of one key in a transaction.
  await sql.run('DELETE FROM lake_rebuilds WHERE relation = $model', { model });
  await sql.run('INSERT INTO lake_rebuilds VALUES ($model, $run)', { model, run: runId });
}

/**
 * Publishes every rebuild waiting (see the module's steps): the lake's days of each model rebuilt
 * in full become the new build's. Returns the models published. Runs between two model refreshes,
 * after any move a kill interrupted was finished.
 */
export async function publishRebuilds(context: MoveContext): Promise<string[]> {
  const models = await context.withConnection((connection) => waitingRebuilds(connectionRunner(connection)));
  if (models.length === 0) return [];
  let manifest = await readLakeManifest(context.dir);
  const last = manifest.moves.at(-1);
  if (last === undefined)
    throw new Error(`the lake ${context.dir} lists no move, yet models built in it wait`);
  // Files of a publish killed before its manifest: their part numbers are copied again below.
  await removeLeftovers(context.dir, manifest, context.relations);
  const written: Record<string, LakeFile[]> = {};
  await context.withConnection(async (connection) => {
    const sql = connectionRunner(connection);
    const bounds = await readBounds(sql);
    for (const model of models) {
      const bound = bounds.get(model);
      const hot = hotTableOf(model);
      // Without a bound or its table (not a model of the lake after all) its files stay as they are.
      if (bound === undefined || !(await isTable(sql, hot))) continue;
      written[model] = await copyDays(
        sql,
        context.dir,
        manifest,
        lakeRelation(context.relations, model),
        hot,
        null,
        bound,
      );
    }
  });
  crashPoint('copied');
  manifest = {
    format: 1,
    relations: { ...manifest.relations, ...written },
    moves: [
      ...manifest.moves,
      {
        id: randomUUID(),
        before: last.before,
        at: new Date(context.clock()).toISOString(),
        rebuilt: models,
      },
    ],
  };
  await writeLakeManifest(context.dir, manifest);
  crashPoint('manifest');
  await finishMove(context, manifest);
  await removeLeftovers(context.dir, manifest, context.relations, () => crashPoint('removing'));
  // The deleted days leave free blocks that later writes reuse; a checkpoint frees them now.
  await context.withConnection((connection) => connection.run('CHECKPOINT')).catch(() => undefined);
  return models;
}
