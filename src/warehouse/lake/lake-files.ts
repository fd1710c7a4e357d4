/**
 * The lake's parquet files: a relation's rows written a file per day under a part number never
 * listed before, and the files no manifest lists (what a killed move or rebuild left, and the
 * generation a rebuild replaced) removed.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { copyToParquet } from '../parquet-store/index.js';
import { timestampText } from './finish-move.js';
import { columnsOf, ident, literal, parquetColumn } from './lake-views.js';
import type { LakeFile, LakeManifest } from './manifest.js';
import type { LakeRelation } from './relations.js';
import type { SqlRunner } from './sql-runner.js';

/** Rows per row group of a sorted day file: a day of one item group's runs spans one or two. */
const SORTED_ROW_GROUP = 16_384;

/** The COPY options of a lake file, sorted (in row groups of `rowGroup` rows) or not. */
export function parquetOptions(sorted: boolean, rowGroup = SORTED_ROW_GROUP): string {
  return `FORMAT parquet, COMPRESSION zstd${sorted ? `, ROW_GROUP_SIZE ${rowGroup}` : ''}`;
}

/**
 * Copies the rows of `relation` in table `hot` whose time is from `from` (null: all before) up to
 * `until` (epoch ms, exclusive) into the lake at `dir`, one file per day: one statement a day, so
 * the memory is bounded by a day.
 */
export async function copyDays(
  sql: SqlRunner,
  dir: string,
  manifest: LakeManifest,
  relation: LakeRelation,
  hot: string,
  from: number | null,
  until: number,
): Promise<LakeFile[]> {
  const time = ident(relation.time);
  const since = from === null ? '' : ` AND ${time} >= TIMESTAMP ${literal(timestampText(from))}`;
  const rows = `FROM main.${ident(hot)} WHERE ${time} < TIMESTAMP ${literal(timestampText(until))}${since}`;
  const days = await sql.all<{ day: string }>(
    `SELECT DISTINCT strftime(CAST(${time} AS DATE), '%Y-%m-%d') AS day ${rows} ORDER BY day`,
  );
  const columns = (await columnsOf(sql, hot)).map(parquetColumn).join(', ');
  // Sorted rows in small row groups: a read of one item group skips the others' by their statistics.
  const order = relation.orderBy.length > 0 ? ` ORDER BY ${relation.orderBy.map(ident).join(', ')}` : '';
  const options = parquetOptions(order !== '');
  const files: LakeFile[] = [];
  for (const { day } of days) {
    const folder = `${relation.name}/date=${day}`;
    const path = `${folder}/part-${nextPart(manifest, folder)}.parquet`;
    const written = await copyToParquet(
      async (statement) => Number((await sql.all<{ Count: bigint }>(statement))[0]?.Count ?? 0),
      `SELECT ${columns} ${rows} AND CAST(${time} AS DATE) = DATE ${literal(day)}${order}`,
      join(dir, path),
      options,
    );
    files.push({ path, date: day, ...written });
  }
  return files;
}

/** The next part number of a folder: one past the highest the manifest lists, so none is reused. */
export function nextPart(manifest: LakeManifest, folder: string): number {
  const listed = Object.values(manifest.relations)
    .flat()
    .filter((f) => f.path.startsWith(`${folder}/`))
    .map((f) => Number(/part-(\d+)\.parquet$/.exec(f.path)?.[1] ?? -1));
  return Math.max(-1, ...listed) + 1;
}

/**
 * Removes the files of the relations' folders the manifest does not list: what a killed move or
 * rebuild left, and the files a rebuild's new generation replaced. `onRemoved` runs after each.
 */
export async function removeLeftovers(
  dir: string,
  manifest: LakeManifest,
  relations: readonly LakeRelation[],
  onRemoved: () => void = () => undefined,
): Promise<void> {
  const listed = new Set(
    Object.values(manifest.relations)
      .flat()
      .map((f) => f.path),
  );
  // The manifest's relations too: a model whose lake: line was dropped keeps its folder cleaned.
  const names = new Set([...relations.map((r) => r.name), ...Object.keys(manifest.relations)]);
  for (const name of names) {
    const days = await readdir(join(dir, name)).catch(() => [] as string[]);
    for (const day of days) {
      const parts = await readdir(join(dir, name, day)).catch(() => [] as string[]);
      let left = parts.length;
      for (const part of parts) {
        const path = `${name}/${day}/${part}`;
        if (listed.has(path)) continue;
        await rm(join(dir, path), { force: true });
        left -= 1;
        onRemoved();
      }
      // A day merged into its month leaves no folder behind for a glob or a Hive table to list.
      if (left === 0) await rmdir(join(dir, name, day)).catch(() => undefined);
    }
  }
}
