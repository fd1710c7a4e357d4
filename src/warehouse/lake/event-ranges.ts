/**
 * The positions of the stream events in the lake, per event log and landing day, kept in the file
 * (`lake_event_ranges`, migration `024_lake_event_ranges.sql`): landing looks an event at or below
 * its log's watermark up in the lake's files of the days whose range holds its position, so a
 * replay of events moved long ago (a resume from an old position, a recording sent again) lands
 * nothing and reads the days it replays, not the history. A log gets a row a day: positions of
 * other games' events (the service numbers one log for all) fall inside a range, so a range says
 * where to look, not that the event is there.
 */
import { isTable, literal } from './lake-views.js';
import type { SqlRunner } from './sql-runner.js';

/**
 * The SQL of `source`'s rows (a relation of `raw_listing_events`' rows) with a canonical event id
 * as its log, position and landing day: an id that is its log followed by its position's digits
 * as written (no leading zero). Another id (no digits, leading zeros, past BIGINT) names no
 * position alone and gets no range: landing looks it up in the whole lake.
 */
function canonicalPositions(source: string): string {
  return `SELECT log, position, day FROM (
            SELECT log, try_cast(nullif(event_id[length(log) + 1:], '') AS BIGINT) AS position, event_id, day
            FROM (SELECT rtrim(event_id, '0123456789') AS log, event_id, CAST(ingested_at AS DATE) AS day FROM ${source}))
          WHERE event_id = log || CAST(position AS VARCHAR)`;
}

/**
 * Adds the positions of the events `source` holds (in the transaction that moves them) to
 * `lake_event_ranges`, widening the row of a log and day that has one (a day moved in two parts).
 */
export async function recordEventRanges(sql: SqlRunner, source: string): Promise<void> {
  await sql.run(
    `CREATE OR REPLACE TEMP TABLE _lake_new_ranges AS
     SELECT log, day, min(position) AS lo, max(position) AS hi FROM (${canonicalPositions(source)}) GROUP BY ALL`,
  );
  await sql.run(
    `CREATE OR REPLACE TEMP TABLE _lake_new_ranges AS
     SELECT log, day, min(lo) AS lo, max(hi) AS hi FROM (
       SELECT * FROM _lake_new_ranges
       UNION ALL
       SELECT g.* FROM lake_event_ranges g SEMI JOIN _lake_new_ranges n ON n.log = g.log AND n.day = g.day)
     GROUP BY ALL`,
  );
  await sql.run(
    'DELETE FROM lake_event_ranges g USING _lake_new_ranges n WHERE n.log = g.log AND n.day = g.day',
  );
  await sql.run('INSERT INTO lake_event_ranges SELECT log, day, lo, hi FROM _lake_new_ranges');
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
