/**
 * A move of every row landed before an instant from the warehouse file into the lake, in three
 * steps, each safe to be killed in: (1) copy, per relation and day, the rows to a new parquet file
 * (`<relation>/date=YYYY-MM-DD/part-<n>.parquet`, zstd); (2) replace the manifest, listing them and
 * the move; (3) in one transaction of the file, delete the moved rows and point the views at the
 * new files and bounds. Until (3) commits readers read the rows in the file and the former files;
 * after it, the new files and the rows left. A move killed after (2) is finished by the next open
 * or move ({@link finishMove}); files of one killed before (2) are removed by the next move.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { copyToParquet } from '../parquet-store/index.js';
import { crashPoint } from './crash-point.js';
import { LakeInputError } from './lake-input-error.js';
import {
  columnsOf,
  connectionRunner,
  createWholeViews,
  hasLake,
  hotTable,
  ident,
  literal,
  parquetColumn,
  type SqlRunner,
} from './lake-views.js';
import { type LakeFile, type LakeManifest, readLakeManifest, writeLakeManifest } from './manifest.js';
import { hotTableOf, LAKE_RELATIONS, type LakeRelation } from './relations.js';

/** What a move did. */
export interface LakeMoveSummary {
  /** The move's id (the manifest's), or null when no row was old enough and nothing was written. */
  moveId: string | null;
  /** The instant, ISO 8601. */
  before: string;
  /** Files and rows written per relation. */
  relations: Record<string, { files: number; rows: number }>;
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
}

/** `ms` as a TIMESTAMP's text, UTC, with milliseconds. */
function timestampText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** The bound a move to `before` sets for `relation`: the instant for landing tables; its day's start for models (whole days). */
function boundOf(relation: LakeRelation, before: number): number {
  return relation.kind === 'raw' ? before : before - (before % 86_400_000);
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
  let manifest = await readLakeManifest(context.dir);
  await finishMove(context, manifest);
  await removeLeftovers(context.dir, manifest);
  const moveId = randomUUID();
  const summary: LakeMoveSummary = { moveId, before: new Date(before).toISOString(), relations: {} };
  const written: Record<string, LakeFile[]> = {};
  await context.withConnection(async (connection) => {
    const sql = connectionRunner(connection);
    const bounds = await readBounds(sql);
    for (const relation of LAKE_RELATIONS) {
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
  if (Object.values(written).every((files) => files.length === 0)) return { ...summary, moveId: null };
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
  // Deleted rows leave free blocks that later writes reuse; a checkpoint frees them now.
  await context.withConnection((connection) => connection.run('CHECKPOINT')).catch(() => undefined);
  return summary;
}

/** The lake folder the file's last completed move wrote, or null before any (or without the lake's tables). */
export async function recordedLakeDir(sql: SqlRunner): Promise<string | null> {
  if (!(await hasLake(sql))) return null;
  const [last] = await sql.all<{ dir: string }>(
    'SELECT lake_dir AS dir FROM lake_moves ORDER BY lake_before DESC LIMIT 1',
  );
  return last?.dir ?? null;
}

/** Each relation's bound now, epoch ms. */
async function readBounds(sql: SqlRunner): Promise<Map<string, number>> {
  const rows = await sql.all<{ relation: string; ms: bigint | number }>(
    'SELECT relation, epoch_ms(lake_before) AS ms FROM lake_bounds',
  );
  return new Map(rows.map((r) => [r.relation, Number(r.ms)]));
}

/**
 * Copies the rows of `relation` from its bound (a model's rows before it are a full rebuild's
 * copy of what the lake holds) up to the move's, one file per day; null when it does not move
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
  const time = ident(relation.time);
  const from =
    relation.kind === 'model' && bound !== undefined
      ? ` AND ${time} >= TIMESTAMP ${literal(timestampText(bound))}`
      : '';
  const rows = `FROM main.${ident(hot)} WHERE ${time} < TIMESTAMP ${literal(timestampText(until))}${from}`;
  const days = await sql.all<{ day: string }>(
    `SELECT DISTINCT strftime(CAST(${time} AS DATE), '%Y-%m-%d') AS day ${rows} ORDER BY day`,
  );
  const columns = (await columnsOf(sql, hot)).map(parquetColumn).join(', ');
  const files: LakeFile[] = [];
  for (const { day } of days) {
    const folder = `${relation.name}/date=${day}`;
    const path = `${folder}/part-${nextPart(manifest, folder)}.parquet`;
    const written = await copyToParquet(
      async (statement) => Number((await sql.all<{ Count: bigint }>(statement))[0]?.Count ?? 0),
      `SELECT ${columns} ${rows} AND CAST(${time} AS DATE) = DATE ${literal(day)}`,
      join(dir, path),
      'FORMAT parquet, COMPRESSION zstd',
    );
    files.push({ path, date: day, ...written });
  }
  return files;
}

/** The next part number of a day's folder: one past the highest the manifest lists, so none is reused. */
function nextPart(manifest: LakeManifest, folder: string): number {
  const listed = Object.values(manifest.relations)
    .flat()
    .filter((f) => f.path.startsWith(`${folder}/`))
    .map((f) => Number(/part-(\d+)\.parquet$/.exec(f.path)?.[1] ?? -1));
  return Math.max(-1, ...listed) + 1;
}

/** Removes the files of the relations' folders the manifest does not list: what a killed move left. */
async function removeLeftovers(dir: string, manifest: LakeManifest): Promise<void> {
  const listed = new Set(
    Object.values(manifest.relations)
      .flat()
      .map((f) => f.path),
  );
  for (const relation of LAKE_RELATIONS) {
    const days = await readdir(join(dir, relation.name)).catch(() => [] as string[]);
    for (const day of days) {
      const parts = await readdir(join(dir, relation.name, day)).catch(() => [] as string[]);
      for (const part of parts) {
        const path = `${relation.name}/${day}/${part}`;
        if (!listed.has(path)) await rm(join(dir, path), { force: true });
      }
    }
  }
}

/**
 * Completes in the file the manifest's last move when the file has not (a move killed after its
 * manifest was written): in one transaction, deletes the rows it copied, moves a model's rows into
 * `<model>__hot` the first time, records the files and bounds and recreates the views. Throws when
 * the file completed a move the manifest does not list (another lake than the one it moved to).
 */
export async function finishMove(context: MoveContext, manifest: LakeManifest): Promise<void> {
  await context.transaction(async (sql) => {
    const done = await sql.all<{ move_id: string }>('SELECT move_id FROM lake_moves');
    const known = new Set(manifest.moves.map((m) => m.id));
    const missing = done.find((m) => !known.has(m.move_id));
    if (missing)
      throw new Error(
        `the lake ${context.dir} does not list move ${missing.move_id} of this warehouse: is it the lake it moved to?`,
      );
    const last = manifest.moves.at(-1);
    if (last === undefined || done.some((m) => m.move_id === last.id)) return;
    const before = Date.parse(last.before);
    const bounds = await readBounds(sql);
    for (const relation of LAKE_RELATIONS) {
      const until = boundOf(relation, before);
      const bound = bounds.get(relation.name);
      if (bound !== undefined && bound >= until) continue;
      let hot = await hotTable(sql, relation);
      if (hot === null) continue;
      if (relation.kind === 'model' && hot === relation.name) {
        await sql.run(`ALTER TABLE main.${ident(hot)} RENAME TO ${ident(hotTableOf(relation.name))}`);
        hot = hotTableOf(relation.name);
      }
      await sql.run(
        `DELETE FROM main.${ident(hot)} WHERE ${ident(relation.time)} < TIMESTAMP ${literal(timestampText(until))}`,
      );
      crashPoint('deleting');
      await sql.run('DELETE FROM lake_bounds WHERE relation = $relation', { relation: relation.name });
      await sql.run('INSERT INTO lake_bounds VALUES ($relation, CAST($bound AS TIMESTAMP), $move)', {
        relation: relation.name,
        bound: timestampText(until),
        move: last.id,
      });
    }
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
    await createWholeViews(sql);
  });
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

/**
 * Opens the lake at `dir` with the file: finishes a move a kill interrupted, then recreates the
 * whole views with the files where `dir` has them. Without a lake folder (a file in memory) or
 * the lake's tables (a file of an older layout), the views read the file alone.
 */
export async function openLake(context: Omit<MoveContext, 'dir'> & { dir: string | null }): Promise<void> {
  const { dir } = context;
  const lake = await context.transaction(async (sql) => {
    const has = await hasLake(sql);
    if (!has || dir === null) await createWholeViews(sql);
    return has;
  });
  if (!lake || dir === null) return;
  await openLakeAt({ ...context, dir });
}

/** {@link openLake} of a file that has the lake's tables, with the lake at `context.dir`. */
async function openLakeAt(context: MoveContext): Promise<void> {
  const manifest = await readLakeManifest(context.dir);
  await finishMove(context, manifest);
  await context.transaction(async (sql) => {
    await recordFiles(sql, context.dir, manifest);
    await createWholeViews(sql);
  });
}
