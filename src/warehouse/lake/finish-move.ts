/**
 * The last step of a move or a rebuild, in one transaction of the file: what the manifest's last
 * entry says is in the lake leaves the file, and the views read the lake's new files. Run by the
 * move or rebuild that wrote the manifest, and again by the next open or move when a kill came
 * between the manifest and this step's commit.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { crashPoint } from './crash-point.js';
import { recordEventRanges } from './event-ranges.js';
import { createWholeViews, hasLake, hotTable, ident, literal } from './lake-views.js';
import type { LakeManifest, LakeMove } from './manifest.js';
import { hotTableOf, type LakeRelation, lakeRelation } from './relations.js';
import type { SqlRunner } from './sql-runner.js';

/** A model kept in the file and the columns its table is stored in order of. */
export interface OrderedTable {
  name: string;
  orderBy: readonly string[];
}

/** How a move reaches the warehouse: its writer's transactions and connections of its own. */
export interface MoveContext {
  /** The lake folder (absolute). */
  dir: string;
  /** The warehouse's clock, epoch ms: a move's instant may not be after it. */
  clock: () => number;
  /** Runs `work` in one transaction of the writer, after the writes queued before it. */
  transaction<T>(work: (sql: SqlRunner) => Promise<T>): Promise<T>;
  /** Runs `use` on a connection of its own. */
  withConnection<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** The relations that move: the landing tables and the models of the folder with a `lake:` line. */
  relations: readonly LakeRelation[];
  /** The models kept in the file with an `order_by:` line: each move rewrites their table in that order. */
  ordered: readonly OrderedTable[];
}

/** `ms` as a TIMESTAMP's text, UTC, with milliseconds. */
export function timestampText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** The bound a move to `before` sets for `relation`: the instant for landing tables; its day's start for models (whole days). */
export function boundOf(relation: LakeRelation, before: number): number {
  return relation.kind === 'raw' ? before : before - (before % 86_400_000);
}

/** Each relation's bound now, epoch ms. */
export async function readBounds(sql: SqlRunner): Promise<Map<string, number>> {
  const rows = await sql.all<{ relation: string; ms: bigint | number }>(
    'SELECT relation, epoch_ms(lake_before) AS ms FROM lake_bounds',
  );
  return new Map(rows.map((r) => [r.relation, Number(r.ms)]));
}

/**
 * Completes in the file the manifest's last entry when the file has not (one killed after its
 * manifest was written): in one transaction, deletes the rows it copied (for a move, moving a
 * model's rows into `<model>__hot` the first time and raising the bounds; for a rebuild, the
 * rebuilt days before the bound; for a merge of months, none), records the files and recreates the views. Throws when the file
 * completed a move the manifest does not list (another lake than the one it moved to). Returns
 * whether it completed one.
 */
export async function finishMove(context: MoveContext, manifest: LakeManifest): Promise<boolean> {
  return context.transaction(async (sql) => {
    const done = await sql.all<{ move_id: string }>('SELECT move_id FROM lake_moves');
    const known = new Set(manifest.moves.map((m) => m.id));
    const missing = done.find((m) => !known.has(m.move_id));
    if (missing)
      throw new Error(
        `the lake ${context.dir} does not list move ${missing.move_id} of this warehouse: is it the lake it moved to?`,
      );
    const last = manifest.moves.at(-1);
    if (last === undefined || done.some((m) => m.move_id === last.id)) return false;
    const before = Date.parse(last.before);
    // A merge of months moved no row: its files hold the rows of the files they replace.
    if (last.rebuilt) await dropRebuiltDays(sql, context.relations, last.rebuilt);
    else if (!last.merged) await dropMovedRows(sql, context.relations, last, before);
    await recordFiles(sql, context.dir, manifest);
    await sql.run(
      'INSERT INTO lake_moves VALUES ($id, CAST($before AS TIMESTAMP), CAST($at AS TIMESTAMP), $dir)',
      {
        dir: context.dir,
        id: last.id,
        before: timestampText(before),
        at: timestampText(Date.parse(last.at)),
      },
    );
    await createWholeViews(sql, context.relations);
    return true;
  });
}

/** A move's deletes: every relation's rows before its new bound, which the move copied, and the bounds raised. */
async function dropMovedRows(
  sql: SqlRunner,
  relations: readonly LakeRelation[],
  move: LakeMove,
  before: number,
): Promise<void> {
  const bounds = await readBounds(sql);
  for (const relation of relations) {
    const until = boundOf(relation, before);
    const bound = bounds.get(relation.name);
    if (bound !== undefined && bound >= until) continue;
    let hot = await hotTable(sql, relation);
    if (hot === null) continue;
    if (relation.kind === 'model' && hot === relation.name) {
      await sql.run(`ALTER TABLE main.${ident(hot)} RENAME TO ${ident(hotTableOf(relation.name))}`);
      hot = hotTableOf(relation.name);
    }
    const moved = `main.${ident(hot)} WHERE ${ident(relation.time)} < TIMESTAMP ${literal(timestampText(until))}`;
    // Events leave the file with their positions' ranges kept, so a replay of them lands nothing.
    if (relation.name === 'raw_listing_events')
      await recordEventRanges(sql, `(SELECT event_id, ingested_at FROM ${moved})`);
    await sql.run(`DELETE FROM ${moved}`);
    crashPoint('deleting');
    await sql.run('DELETE FROM lake_bounds WHERE relation = $relation', { relation: relation.name });
    await sql.run('INSERT INTO lake_bounds VALUES ($relation, CAST($bound AS TIMESTAMP), $move)', {
      relation: relation.name,
      bound: timestampText(until),
      move: move.id,
    });
  }
}

/**
 * A rebuild's deletes: each rebuilt model's days before its bound, which the rebuild copied as the
 * model's new files, and its mark of a rebuild waiting (its view then reads the lake again).
 */
async function dropRebuiltDays(
  sql: SqlRunner,
  relations: readonly LakeRelation[],
  models: readonly string[],
): Promise<void> {
  const bounds = await readBounds(sql);
  for (const model of models) {
    const relation = lakeRelation(relations, model);
    const bound = bounds.get(model);
    if (bound !== undefined)
      await sql.run(
        `DELETE FROM main.${ident(hotTableOf(model))} WHERE ${ident(relation.time)} < TIMESTAMP ${literal(timestampText(bound))}`,
      );
    crashPoint('deleting');
    await sql.run('DELETE FROM lake_rebuilds WHERE relation = $model', { model });
  }
}

/** Replaces `lake_files` with the manifest's files, absolute paths under `dir`. */
export async function recordFiles(sql: SqlRunner, dir: string, manifest: LakeManifest): Promise<void> {
  await sql.run('DELETE FROM lake_files');
  for (const [relation, files] of Object.entries(manifest.relations))
    for (const f of files)
      await sql.run(
        'INSERT INTO lake_files VALUES ($relation, $path, $file, CAST($day AS DATE), $rows, $bytes)',
        {
          relation,
          path: f.path,
          file: join(dir, f.path),
          day: f.date,
          rows: f.rows,
          bytes: f.bytes,
        },
      );
}

/** The lake folder the file's last completed move wrote, or null before any (or without the lake's tables). */
export async function recordedLakeDir(sql: SqlRunner): Promise<string | null> {
  if (!(await hasLake(sql))) return null;
  const [last] = await sql.all<{ dir: string }>(
    'SELECT lake_dir AS dir FROM lake_moves ORDER BY lake_before DESC, moved_at DESC LIMIT 1',
  );
  return last?.dir ?? null;
}
