/**
 * A month of the lake is one file: after each move, the day files of a model with an `order_by:`
 * line are merged with their month's file, if it has one, into a new file of that month,
 * `<model>/month=YYYY-MM/part-<n>.parquet`, sorted by that line's columns (in row groups of 65,536
 * rows), so a read of one item group's history reads its rows together instead of a row group of
 * every day file. A month is
 * rewritten by each move until it is over (the days moved since join it), then never again. In the
 * steps of a rebuild, each safe to be killed in: (1) copy each month's files into its new month file
 * (a new part number); (2) replace the manifest, the month file listed instead of those (its entry
 * says the days it holds: `date` through `through`), with a move entry `merged`; (3) in one
 * transaction of the file, point the views at the listed files (`finishMove`: no row leaves the
 * file); (4) remove the replaced files. Killed in (1), the next move removes the unlisted month files
 * and merges again; after (2) or in (3), the next open or move finishes (3); in (4), the next move
 * removes the rest. Readers read the replaced files or the month file, never both: the file's until
 * (3) commits, outside readers until the manifest's rename.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { copyToParquet } from '../parquet-store/index.js';
import { crashPoint } from './crash-point.js';
import { finishMove, type MoveContext } from './finish-move.js';
import { nextPart, parquetOptions, removeLeftovers } from './lake-files.js';
import { ident, literal } from './lake-views.js';
import { type LakeFile, type LakeManifest, readLakeManifest, writeLakeManifest } from './manifest.js';
import type { LakeRelation } from './relations.js';
import { connectionRunner, type SqlRunner } from './sql-runner.js';

/**
 * Rows per row group of a month file. A month of the history bench's `int_minask_spells` is 7.9M
 * rows: in groups of 16,384 its footer lists 482 of them, and one item group's 90 days (4 files)
 * read in 41-56 ms against 25 ms in groups of 65,536 (`fct_minask_hourly`'s: 23-32 against 12-14
 * ms; python duckdb, 1 thread, load 8): the footer is read whole, the group's rows decoded are few.
 */
const MONTH_ROW_GROUP = 65_536;

/** The files of one month of one relation that a merge makes one. */
interface MonthToMerge {
  relation: LakeRelation;
  /** `YYYY-MM`. */
  month: string;
  files: LakeFile[];
}

/**
 * Merges the day files of the sorted models into one file a month (see the module's steps).
 * Returns, per relation merged, the months (`YYYY-MM`) it merged; runs after a move completed.
 */
export async function mergeMonths(context: MoveContext): Promise<Record<string, string[]>> {
  let manifest = await readLakeManifest(context.dir);
  const last = manifest.moves.at(-1);
  if (last === undefined) return {};
  const months = monthsToMerge(manifest, context.relations);
  if (months.length === 0) return {};
  const written = new Map<string, LakeFile[]>();
  await context.withConnection(async (connection) => {
    const sql = connectionRunner(connection);
    for (const month of months) {
      const file = await copyMonth(sql, context.dir, manifest, month);
      written.set(month.relation.name, [...(written.get(month.relation.name) ?? []), file]);
    }
  });
  crashPoint('month-copied');
  const relations = { ...manifest.relations };
  for (const month of months) {
    const replaced = new Set(month.files.map((f) => f.path));
    relations[month.relation.name] = (relations[month.relation.name] ?? []).filter(
      (f) => !replaced.has(f.path),
    );
  }
  for (const [name, files] of written)
    relations[name] = [...(relations[name] ?? []), ...files].sort((a, b) => (a.date < b.date ? -1 : 1));
  manifest = {
    format: 1,
    relations,
    moves: [
      ...manifest.moves,
      {
        id: randomUUID(),
        before: last.before,
        at: new Date(context.clock()).toISOString(),
        merged: [...written.keys()],
      },
    ],
  };
  await writeLakeManifest(context.dir, manifest);
  crashPoint('month-manifest');
  await finishMove(context, manifest);
  await removeLeftovers(context.dir, manifest, context.relations, () => crashPoint('month-removing'));
  const merged: Record<string, string[]> = {};
  for (const month of months)
    merged[month.relation.name] = [...(merged[month.relation.name] ?? []), month.month];
  return merged;
}

/** The months to merge: per model with an `order_by:` line, each month whose listed files are not one month file. */
export function monthsToMerge(manifest: LakeManifest, relations: readonly LakeRelation[]): MonthToMerge[] {
  const months: MonthToMerge[] = [];
  for (const relation of relations) {
    if (relation.kind !== 'model' || relation.orderBy.length === 0) continue;
    const byMonth = new Map<string, LakeFile[]>();
    for (const file of manifest.relations[relation.name] ?? []) {
      const month = file.date.slice(0, 7);
      byMonth.set(month, [...(byMonth.get(month) ?? []), file]);
    }
    for (const [month, files] of [...byMonth].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (files.length > 1 || files[0]?.through === undefined) months.push({ relation, month, files });
  }
  return months;
}

/** Copies a month's files into one file under `<relation>/month=YYYY-MM/`, sorted by the relation's order. */
async function copyMonth(
  sql: SqlRunner,
  dir: string,
  manifest: LakeManifest,
  { relation, month, files }: MonthToMerge,
): Promise<LakeFile> {
  const folder = `${relation.name}/month=${month}`;
  const path = `${folder}/part-${nextPart(manifest, folder)}.parquet`;
  const list = files.map((f) => literal(join(dir, f.path))).join(', ');
  // By name: a model given a column since some days were written has files of two sets of columns.
  const select = `SELECT * FROM read_parquet([${list}], union_by_name = true) ORDER BY ${relation.orderBy.map(ident).join(', ')}`;
  const written = await copyToParquet(
    async (statement) => Number((await sql.all<{ Count: bigint }>(statement))[0]?.Count ?? 0),
    select,
    join(dir, path),
    parquetOptions(true, MONTH_ROW_GROUP),
  );
  const days = files.flatMap((f) => [f.date, f.through ?? f.date]).sort();
  return { path, date: days[0] ?? `${month}-01`, through: days.at(-1) ?? `${month}-01`, ...written };
}
