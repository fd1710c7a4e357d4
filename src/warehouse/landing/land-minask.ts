/** Lands a game's minAsk price list raw, once per list build. */

import { countLandedPayloads } from '../typing/payload-counts.js';
import { appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** One game's minAsk price list, its rows as the pages held them. */
export interface MinAskList {
  appId: number;
  fetchedAt: number;
  /** The list's `generated_at` (epoch ms), null when the pages sent none that reads as a time. */
  generatedAt: number | null;
  /** Each row as the JSON value of the page's `items` (a PriceRow when the upstream keeps the contract). */
  rows: readonly unknown[];
}

/** The batch's `minask`: one price list per batch. */
export const minAskLander = defineLander({
  field: 'minask',
  merge: 'once',
  rows: (list: MinAskList) => list.rows.length,
  land: landMinAsk,
});

/**
 * Lands a minAsk price list in `raw_minask_prices`, each row as its JSON text with its place in the
 * list, unless the same build (app and generated_at; without one, the same fetch) landed already.
 * A row byte-identical to the last row landed for its item group in that game is recorded in
 * `raw_minask_price_repeats` instead. Nothing of a row is typed here: `minask_prices` types them.
 */
async function landMinAsk(context: LandingContext, list: MinAskList): Promise<void> {
  if (list.rows.length === 0) return;
  const generated = msToTimestamp('$generated');
  const sameBuild = `(generated_at = ${generated} OR ($generated IS NULL AND fetched_at = ${msToTimestamp('$fetched')}))`;
  const [landedBefore] = (
    await context.connection.runAndReadAll(
      `SELECT EXISTS (SELECT 1 FROM raw_minask_prices__hot WHERE app_id = $app AND ${sameBuild})
           OR EXISTS (SELECT 1 FROM raw_minask_price_repeats__hot WHERE app_id = $app AND ${sameBuild})`,
      { app: list.appId, generated: list.generatedAt, fetched: list.fetchedAt },
    )
  ).getRows();
  if (landedBefore?.[0] === true) return;
  await appendToTemp(context, '_wh_minask', { p: 'INTEGER', d: 'VARCHAR' }, list.rows, (appender, row, i) => {
    appender.appendInteger(i);
    appender.appendVarchar(JSON.stringify(row) ?? 'null');
  });
  const params = {
    app: list.appId,
    fetched: list.fetchedAt,
    generated: list.generatedAt,
    load: context.loadId,
    now: context.now,
  };
  await run(context, GROUP_ROWS);
  await run(context, JUDGE_ROWS, { app: list.appId });
  await run(context, 'DROP TABLE _wh_minask_groups');
  const envelope = `$app, ${generated}, ${msToTimestamp('$fetched')}`;
  const tail = `$load, ${msToTimestamp('$now')}`;
  const landed = await run(
    context,
    `INSERT INTO raw_minask_prices__hot SELECT ${envelope}, p, d, ${tail} FROM _wh_minask_judged WHERE NOT repeat ORDER BY p`,
    params,
  );
  const repeats = await run(
    context,
    `INSERT INTO raw_minask_price_repeats__hot
     SELECT ${envelope}, p, coalesce(same.f, ${msToTimestamp('$fetched')}), same.p, ${tail}
     FROM _wh_minask_judged WHERE repeat ORDER BY p`,
    params,
  );
  await run(
    context,
    `INSERT INTO minask_group_marks
     SELECT $app, g, arg_max(h, p), ${msToTimestamp('$fetched')}, max(p) FROM _wh_minask_judged
     WHERE NOT repeat AND g IS NOT NULL GROUP BY g
     ON CONFLICT (app_id, group_key) DO UPDATE SET data_md5 = excluded.data_md5,
       fetched_at = excluded.fetched_at, position = excluded.position`,
    { app: list.appId, fetched: list.fetchedAt },
  );
  await run(context, 'DROP TABLE _wh_minask_judged');
  await run(context, 'DROP TABLE _wh_minask');
  await countLandedPayloads(
    context,
    landed,
    {
      raw: 'raw_minask_prices',
      repeats: 'raw_minask_price_repeats',
      typed: 'minask_prices_typed',
      kinds: ['price_row'],
      receivedAt: 'fetched_at',
    },
    repeats,
  );
}

/**
 * The list's rows (`_wh_minask`: `p`osition, `d`ata) with their md5 `h` and item group `g` (null when
 * it names none); `JUDGE_ROWS` then judges them in `_wh_minask_judged`: `repeat` when byte-identical to the group's last row
 * landed in the game `$app` (the list's previous row of that group; else its mark, compared by md5),
 * with `same`, the stored row holding that text (`f`etched, `p`osition; a null time: this list).
 */
const GROUP_ROWS = `CREATE OR REPLACE TEMP TABLE _wh_minask_groups AS
   SELECT p, d, md5_number(d) AS h,
          CASE WHEN json_valid(d) AND json_type(d, '$.market_hash_name') = 'VARCHAR'
               THEN CAST(json_extract(d, ['$.market_hash_name', '$.wear', '$.doppler_phase']) AS VARCHAR) END AS g
   FROM _wh_minask`;

/** Judges the rows of `_wh_minask_groups` in `_wh_minask_judged` (see `GROUP_ROWS`). */
const JUDGE_ROWS = `CREATE OR REPLACE TEMP TABLE _wh_minask_judged AS
   SELECT *, coalesce(last_value(CASE WHEN NOT repeat THEN {'f': NULL::TIMESTAMP, 'p': p} END IGNORE NULLS) OVER (
                        PARTITION BY g ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                      mark) AS same
   FROM (
     SELECT s.*, CASE WHEN m.group_key IS NULL THEN NULL ELSE {'f': m.fetched_at, 'p': m.position} END AS mark,
            s.g IS NOT NULL AND coalesce(s.d = lag(s.d) OVER w, s.h = m.data_md5, false) AS repeat
     FROM _wh_minask_groups s LEFT JOIN minask_group_marks m ON m.app_id = $app AND m.group_key = s.g
     WINDOW w AS (PARTITION BY s.g ORDER BY s.p)
   )`;
