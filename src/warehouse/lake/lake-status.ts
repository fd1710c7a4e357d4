/** What the lake holds, as the warehouse file's last completed move recorded it: days, files, bytes. */

import { hasLake } from './lake-views.js';
import type { SqlRunner } from './sql-runner.js';

/** The lake's size. */
export interface LakeStatus {
  /** Distinct days any relation has files of. */
  days: number;
  files: number;
  bytes: number;
  /** Rows its files hold. */
  rows: number;
  /** The instant before which every row landed is in the lake (ISO 8601), or null before the first move. */
  before: string | null;
}

/** The lake's days, files, bytes and rows, and the last move's instant. */
export async function readLakeStatus(sql: SqlRunner): Promise<LakeStatus> {
  if (!(await hasLake(sql))) return { days: 0, files: 0, bytes: 0, rows: 0, before: null };
  const [files] = await sql.all<{ days: bigint; files: bigint; bytes: bigint | null; rows: bigint | null }>(
    'SELECT count(DISTINCT day) AS days, count(*) AS files, sum(bytes) AS bytes, sum(rows) AS rows FROM lake_files',
  );
  const [move] = await sql.all<{ before: string | null }>(
    "SELECT strftime(max(lake_before), '%Y-%m-%dT%H:%M:%S.%gZ') AS before FROM lake_moves",
  );
  return {
    days: Number(files?.days ?? 0),
    files: Number(files?.files ?? 0),
    bytes: Number(files?.bytes ?? 0),
    rows: Number(files?.rows ?? 0),
    before: move?.before ?? null,
  };
}
