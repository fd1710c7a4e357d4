/**
 * The positions of the stream events in the lake, per event log, kept in the file as ranges
 * without a gap (`lake_event_ranges`, migration `024_lake_event_ranges.sql`): landing skips an
 * event at or below its log's watermark whose position falls in one, so a replay of events moved
 * long ago (a resume from an old position, a recording sent again) lands nothing and reads no
 * parquet. A stream read in order gives a log one range, whatever the number of moves.
 */
import { isTable, literal, type SqlRunner } from './lake-views.js';

/**
 * The SQL of each canonical event id of `source` (a relation with `event_id`) as its log and
 * position: an id that is its log followed by its position's digits as written (no leading zero).
 * Another id (no digits, leading zeros, past BIGINT) names no position alone and gets no range.
 */
export function canonicalPositions(source: string): string {
  return `SELECT log, position FROM (
            SELECT log, try_cast(nullif(event_id[length(log) + 1:], '') AS BIGINT) AS position, event_id
            FROM (SELECT rtrim(event_id, '0123456789') AS log, event_id FROM ${source}))
          WHERE event_id = log || CAST(position AS VARCHAR)`;
}

/**
 * Adds the positions of the events `source` holds (a relation of `raw_listing_events`' rows, in
 * the transaction that moves them) to `lake_event_ranges`, merging ranges that touch. The
 * table is rewritten whole: its size is its number of ranges (one per log read in order).
 */
export async function recordEventRanges(sql: SqlRunner, source: string): Promise<void> {
  await sql.run(
    `CREATE OR REPLACE TEMP TABLE _lake_new_ranges AS
     WITH ranges AS (
       SELECT log, min(position) AS lo, max(position) AS hi
       FROM (SELECT log, position, position - row_number() OVER (PARTITION BY log ORDER BY position) AS island
             FROM (SELECT DISTINCT log, position FROM (${canonicalPositions(source)})))
       GROUP BY log, island
       UNION ALL SELECT log, lo, hi FROM lake_event_ranges),
     starts AS (
       SELECT *, CASE WHEN lo <= max(hi) OVER (PARTITION BY log ORDER BY lo, hi ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + 1
                      THEN 0 ELSE 1 END AS start
       FROM ranges)
     SELECT log, min(lo) AS lo, max(hi) AS hi
     FROM (SELECT *, sum(start) OVER (PARTITION BY log ORDER BY lo, hi ROWS UNBOUNDED PRECEDING) AS part FROM starts)
     GROUP BY log, part`,
  );
  await sql.run('DELETE FROM lake_event_ranges');
  await sql.run('INSERT INTO lake_event_ranges SELECT log, lo, hi FROM _lake_new_ranges');
  await sql.run('DROP TABLE _lake_new_ranges');
}

/**
 * Records the ranges of the lake's event files moved before `lake_event_ranges` existed (listed in
 * `lake_event_ranges_pending` by its migration), reading them once, then drops that list. Called
 * with the lake's files recorded (`lake_files`), in the open's transaction.
 */
export async function recordPendingEventRanges(sql: SqlRunner): Promise<void> {
  if (!(await isTable(sql, 'lake_event_ranges_pending'))) return;
  const files = await sql.all<{ file: string }>(
    'SELECT f.file FROM lake_files f JOIN lake_event_ranges_pending p USING (path) ORDER BY f.file',
  );
  if (files.length > 0)
    await recordEventRanges(sql, `read_parquet([${files.map((f) => literal(f.file)).join(', ')}])`);
  await sql.run('DROP TABLE lake_event_ranges_pending');
}
