/** Writing a model's days as parquet with DuckDB `COPY`, one file per day, into the aside folder. */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type DayRange, type ModelPlan, PARTITION_COLUMN } from './export-plan.js';

/** A day that has rows, and how many. */
export interface DayCount {
  day: string;
  rows: number;
}

/**
 * Days written per COPY. Measured on 5 million rows over 365 days: PARTITION_BY over a range of
 * days costs one scan of the model for all of them, where one COPY per day costs a scan per day
 * (4 to 10 times slower); 31 keeps progress frequent and the open files well under DuckDB's
 * `partitioned_write_max_open_files` (100), so each day comes out as one file.
 */
const DAYS_PER_COPY = 31;

/** The days of `covered` that have rows, with their counts, and the number of rows whose date is NULL. */
export async function countDays(
  connection: DuckDBConnection,
  plan: ModelPlan,
  covered: DayRange,
): Promise<{ days: DayCount[]; rowsWithoutDate: number }> {
  const bounds = [
    covered.since === null ? '' : ` AND d >= DATE '${covered.since}'`,
    covered.until === null ? '' : ` AND d <= DATE '${covered.until}'`,
  ].join('');
  const reader = await connection.runAndReadAll(
    `SELECT CAST(d AS VARCHAR) AS day, count(*) AS n FROM (SELECT ${plan.dateSql} AS d FROM "${plan.model.name}")
     WHERE d IS NULL OR (TRUE${bounds}) GROUP BY d ORDER BY d NULLS LAST`,
  );
  const rows = reader
    .getRows()
    .map(([day, n]) => ({ day: day === null ? null : String(day), rows: Number(n) }));
  const days = rows.filter((r): r is DayCount => r.day !== null);
  return { days, rowsWithoutDate: rows.find((r) => r.day === null)?.rows ?? 0 };
}

/**
 * COPYs `days` of the model into `<aside>/<model>/`, a range of days per COPY with PARTITION_BY,
 * calling `onDay` as each day's file is ready; returns each day's one file.
 */
export async function copyDays(
  connection: DuckDBConnection,
  plan: ModelPlan,
  days: readonly DayCount[],
  aside: string,
  onDay: (day: DayCount) => void,
): Promise<Map<string, string>> {
  const name = plan.model.name;
  const files = new Map<string, string>();
  await mkdir(join(aside, name), { recursive: true });
  for (let start = 0; start < days.length; start += DAYS_PER_COPY) {
    const chunk = days.slice(start, start + DAYS_PER_COPY);
    const first = chunk[0]?.day as string;
    const last = chunk.at(-1)?.day as string;
    const dir = join(aside, name, `copy-${start}`);
    await connection.run(
      `COPY (SELECT ${plan.select}, ${plan.dateSql} AS "${PARTITION_COLUMN}" FROM "${name}"
             WHERE ${plan.dateSql} BETWEEN DATE '${first}' AND DATE '${last}')
       TO ${sqlString(dir)} (FORMAT parquet, PARTITION_BY ("${PARTITION_COLUMN}"))`,
    );
    for (const day of chunk) {
      files.set(
        day.day,
        await oneFile(connection, join(dir, `${PARTITION_COLUMN}=${day.day}`), name, day.day),
      );
      onDay(day);
    }
  }
  return files;
}

/**
 * The single parquet file of a day folder DuckDB wrote. DuckDB splits a partition over several
 * files when it has more open than `partitioned_write_max_open_files`; those are merged into one.
 */
async function oneFile(
  connection: DuckDBConnection,
  dir: string,
  model: string,
  day: string,
): Promise<string> {
  const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.parquet')).sort();
  if (names.length === 1) return join(dir, names[0] as string);
  if (names.length === 0) throw new Error(`exporting model ${model}: DuckDB wrote no file for ${day}`);
  const merged = join(dir, 'merged.parquet');
  const list = names.map((n) => sqlString(join(dir, n))).join(', ');
  await connection.run(
    `COPY (SELECT * FROM read_parquet([${list}], hive_partitioning = false)) TO ${sqlString(merged)} (FORMAT parquet)`,
  );
  return merged;
}

/** A SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
