/** Lands the CS2 price snapshot raw: a downloaded file's lines as sent, or the record of a 304. */

import type { Params } from '../../shared/database.js';
import { countLandedPayloads } from '../typing/payload-counts.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** A CS2 price snapshot fetch: a downloaded file of PriceRow lines, or a 304. */
export type SnapshotFetch =
  | {
      status: 'downloaded';
      etag: string;
      generatedAt: number | null;
      fetchedAt: number;
      /** A local `.ndjson.gz` (or `.ndjson`) file of PriceRow lines; keep it until the write has committed. */
      file: string;
    }
  | { status: 'unchanged'; etag: string; fetchedAt: number };

/** The batch's `snapshot`: one fetch per batch. */
export const snapshotLander = defineLander({
  field: 'snapshot',
  merge: 'once',
  rows: (_: SnapshotFetch) => 1,
  land: landSnapshot,
});

/**
 * Reads a file's lines as text, whatever they hold: one column, split on a byte valid JSON never
 * holds raw (U+0001), no quoting. A line that is not UTF-8 (or too long to read) does not fail the
 * read: DuckDB keeps it in the rejects table `_wh_snapshot_rejects`, landed as a line without data.
 */
const READ_LINES = `read_csv($file, columns = {'line': 'VARCHAR'}, header = false, delim = '\u0001', quote = '',
  escape = '', auto_detect = false, strict_mode = false, ignore_errors = true, store_rejects = true,
  rejects_table = '_wh_snapshot_rejects', rejects_scan = '_wh_snapshot_scans')`;

/**
 * Records a snapshot fetch in `snapshot_fetches` (once per ETag and fetch time). A downloaded file
 * lands line by line in `raw_price_snapshots`, unless a file of that ETag landed already (the same
 * ETag means the same prices); without an ETag (`''`) only a replay of the same fetch is skipped.
 * Nothing of a line is parsed here: `price_snapshots` types them.
 */
async function landSnapshot(context: LandingContext, snapshot: SnapshotFetch): Promise<void> {
  let lines: LandedLines = { stored: 0, repeated: 0 };
  if (snapshot.status === 'downloaded') {
    const params = {
      etag: snapshot.etag,
      generated: snapshot.generatedAt,
      fetched: snapshot.fetchedAt,
      load: context.loadId,
      now: context.now,
    };
    const seen = `($etag <> '' OR fetched_at = ${msToTimestamp('$fetched')})`;
    const [before] = (
      await context.connection.runAndReadAll(
        `SELECT EXISTS (SELECT 1 FROM raw_price_snapshots__hot WHERE etag = $etag AND ${seen})
             OR EXISTS (SELECT 1 FROM raw_price_snapshot_repeats__hot WHERE etag = $etag AND ${seen})`,
        { etag: snapshot.etag, fetched: snapshot.fetchedAt },
      )
    ).getRows();
    if (before?.[0] !== true) lines = await landLines(context, snapshot.file, params);
    await countLandedPayloads(
      context,
      lines.stored,
      {
        raw: 'raw_price_snapshots',
        repeats: 'raw_price_snapshot_repeats',
        typed: 'price_snapshots_typed',
        kinds: ['price_row'],
        receivedAt: 'fetched_at',
      },
      lines.repeated,
    );
  }
  const fetches = await run(
    context,
    `INSERT INTO snapshot_fetches
     SELECT ${msToTimestamp('$fetched')}, $etag, $status, $rows, $load, ${msToTimestamp('$now')}
     WHERE NOT EXISTS (
       SELECT 1 FROM snapshot_fetches WHERE etag = $etag AND fetched_at = ${msToTimestamp('$fetched')}
     )`,
    {
      fetched: snapshot.fetchedAt,
      etag: snapshot.etag,
      status: snapshot.status,
      rows: lines.stored + lines.repeated,
      load: context.loadId,
      now: context.now,
    },
  );
  context.count('snapshot_fetches', fetches);
}

/** How many of a file's lines were stored, and how many recorded as repeats. */
interface LandedLines {
  stored: number;
  repeated: number;
}

/**
 * Lands the file's non-blank lines with their line numbers, then the lines DuckDB could not read
 * (as lines without data). DuckDB numbers only the lines it reads, so a read line's number counts
 * the unreadable lines before it: the k-th unreadable line (by number) has `line - k` read lines
 * before it.
 */
async function landLines(context: LandingContext, file: string, params: Params): Promise<LandedLines> {
  const envelope = `$etag, ${msToTimestamp('$generated')}, ${msToTimestamp('$fetched')}`;
  const tail = `$load, ${msToTimestamp('$now')}`;
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_lines AS SELECT row_number() OVER () AS n, line FROM ${READ_LINES}`,
    { file },
  );
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_snapshot_read AS
     SELECT l.n + (
              SELECT count(*) FROM (SELECT line - row_number() OVER (ORDER BY line) AS read_before FROM _wh_snapshot_rejects) u
              WHERE u.read_before < l.n) AS n,
            l.line
     FROM _wh_lines l
     WHERE trim(l.line) <> ''`,
  );
  for (const sql of JUDGE_LINES) await run(context, sql);
  const read = await run(
    context,
    `INSERT INTO raw_price_snapshots__hot
     SELECT ${envelope}, n, line, ${tail} FROM _wh_line_judged WHERE NOT repeat ORDER BY n`,
    params,
  );
  const repeats = await run(
    context,
    `INSERT INTO raw_price_snapshot_repeats__hot
     SELECT ${envelope}, n, coalesce(same.e, $etag), coalesce(same.f, ${msToTimestamp('$fetched')}), same.n, ${tail}
     FROM _wh_line_judged WHERE repeat ORDER BY n`,
    params,
  );
  await run(
    context,
    `INSERT INTO price_group_marks
     SELECT g, arg_max(h, n), $etag, ${msToTimestamp('$fetched')}, max(n) FROM _wh_line_judged
     WHERE NOT repeat AND g IS NOT NULL GROUP BY g
     ON CONFLICT (group_key) DO UPDATE SET data_md5 = excluded.data_md5, etag = excluded.etag,
       fetched_at = excluded.fetched_at, line = excluded.line`,
    { etag: params.etag ?? '', fetched: params.fetched ?? null },
  );
  const unreadable = await run(
    context,
    `INSERT INTO raw_price_snapshots__hot SELECT ${envelope}, line, NULL, ${tail} FROM _wh_snapshot_rejects`,
    params,
  );
  for (const table of [
    '_wh_lines',
    '_wh_snapshot_rejects',
    '_wh_snapshot_scans',
    '_wh_snapshot_read',
    '_wh_line_judged',
  ])
    await run(context, `DROP TABLE ${table}`);
  return { stored: read + unreadable, repeated: repeats };
}

/**
 * The file's readable lines (`_wh_snapshot_read`) judged in `_wh_line_judged`: `g`, the line's item
 * group (null when it names none), and `repeat` when byte-identical to the group's last line landed
 * (the file's previous line of that group; else its mark, compared by md5), with `same`, the stored
 * line holding that text (`e`tag, `f`etched, `n`; a null etag and time: this file).
 */
const JUDGE_LINES: readonly string[] = [
  `CREATE OR REPLACE TEMP TABLE _wh_line_groups AS
   SELECT n, line, md5_number(line) AS h,
          CASE WHEN json_valid(line) AND json_type(line, '$.market_hash_name') = 'VARCHAR'
               THEN CAST(json_extract(line, ['$.market_hash_name', '$.wear', '$.doppler_phase']) AS VARCHAR) END AS g
   FROM _wh_snapshot_read`,
  `CREATE OR REPLACE TEMP TABLE _wh_line_judged AS
   SELECT *, coalesce(last_value(CASE WHEN NOT repeat THEN {'e': NULL::VARCHAR, 'f': NULL::TIMESTAMP, 'n': n} END IGNORE NULLS) OVER (
                        PARTITION BY g ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                      mark) AS same
   FROM (
     SELECT s.*, CASE WHEN m.group_key IS NULL THEN NULL ELSE {'e': m.etag, 'f': m.fetched_at, 'n': m.line} END AS mark,
            s.g IS NOT NULL AND coalesce(s.line = lag(s.line) OVER w, s.h = m.data_md5, false) AS repeat
     FROM _wh_line_groups s LEFT JOIN price_group_marks m ON m.group_key = s.g
     WINDOW w AS (PARTITION BY s.g ORDER BY s.n)
   )`,
  'DROP TABLE _wh_line_groups',
];
