/**
 * Lands what polls, sweeps and catch-ups saw live: each item of a page raw (its JSON text, with
 * where it stood), deduplicated per pass. Typing happens in the view `listing_observations`.
 */

import { countPayloadsSql } from '../typing/payload-checks.js';
import { appendText, appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** One item of a `/listings` page a poll, sweep or catch-up read. Times are epoch milliseconds. */
export interface ObservationRow {
  appId: number;
  /** Stamped when the page was requested: the page shows the server at or after it. */
  observedAt: number;
  via: 'poll' | 'sweep' | 'catch_up';
  /** The sweep id or poll window; (via, passId, listing id) is landed once. */
  passId: string;
  /** The page of the pass that held the item (0 is the first). */
  page: number;
  /** The item's index on its page (0 is the first). */
  index: number;
  /**
   * The item's id when the item is a JSON object whose `id` is a string, else null: such an item
   * cannot be deduplicated or typed, and lands to be shown in `rejected_payloads`.
   */
  listingId: string | null;
  /** The item's JSON text, as the page held it. */
  data: string;
}

/** The batch's `observations`, applied after its events. */
export const observationsLander = defineLander({
  field: 'observations',
  merge: 'ordered',
  rows: (observations: ObservationRow[]) => observations.length,
  land: landObservations,
});

/** The staging table the Appender fills: one row per item of the batch, in order. */
const STAGED_COLUMNS = {
  o: 'INTEGER',
  v: 'VARCHAR',
  p: 'VARCHAR',
  g: 'INTEGER',
  i: 'INTEGER',
  l: 'VARCHAR',
  a: 'INTEGER',
  t: 'DOUBLE',
  d: 'VARCHAR',
};

/**
 * Lands `observations` in `raw_listing_observations` as the pages held them: nothing is parsed
 * here, so no item can fail the write. An item lands once per (via, passId, listing id), the first
 * time it is seen (a replayed page is skipped entirely); an item without an id once per (via,
 * passId, page, index). The live set merges what landed (see `live-set.ts`): an observation no
 * newer than the listing's last departure does not revive it; collectors stamp `observedAt` when
 * the request starts, so a page can never postdate that stamp. What the items carry is counted per
 * via in `payload_checks` and `payload_fields` after landing, with the live set's refresh.
 */
async function landObservations(
  context: LandingContext,
  observations: readonly ObservationRow[],
): Promise<void> {
  if (observations.length === 0) return;
  await appendToTemp(context, '_wh_observation_rows', STAGED_COLUMNS, observations, (appender, o, i) => {
    appender.appendInteger(i);
    appender.appendVarchar(o.via);
    appender.appendVarchar(o.passId);
    appender.appendInteger(o.page);
    appender.appendInteger(o.index);
    appendText(appender, o.listingId);
    appender.appendInteger(o.appId);
    appender.appendDouble(o.observedAt);
    appender.appendVarchar(o.data);
  });
  const envelope = `v AS via, p AS pass_id, g AS page, i AS item, l AS listing_id, a AS app_id, d AS data,
    ${msToTimestamp('t')} AS observed_at, $load AS load_id, ${msToTimestamp('$now')} AS ingested_at, o`;
  const params = { load: context.loadId, now: context.now };
  for (const sql of JUDGE_REPEATS) await run(context, sql);
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_raw_observations AS
     SELECT * EXCLUDE (o) FROM (
       SELECT ${envelope} FROM _wh_judged WHERE NOT repeat
       UNION ALL
       SELECT ${envelope} FROM _wh_observation_rows s
       WHERE l IS NULL
         AND NOT EXISTS (SELECT 1 FROM raw_listing_observations__hot r
                         WHERE r.via = s.v AND r.pass_id = s.p AND r.listing_id IS NULL AND r.page = s.g AND r.item = s.i)
     ) ORDER BY o`,
    params,
  );
  const landed = await run(
    context,
    'INSERT INTO raw_listing_observations__hot BY NAME SELECT * FROM _wh_raw_observations',
  );
  context.count('raw_listing_observations', landed);
  const repeats = await run(
    context,
    `INSERT INTO raw_listing_repeats__hot
     SELECT v, p, g, i, l, a, ${msToTimestamp('t')}, same.v, same.p, $load, ${msToTimestamp('$now')}
     FROM _wh_judged WHERE repeat ORDER BY o`,
    params,
  );
  context.count('raw_listing_repeats', repeats);
  // A repeat stores no text, so what it carries is counted now, from the page, as a landed item would be later.
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_repeat_payloads AS
     SELECT v AS source, 'new' AS kind, ${msToTimestamp('t')} AS received_at, $load AS load_id,
            ${msToTimestamp('$now')} AS ingested_at, d AS data FROM _wh_judged WHERE repeat`,
    params,
  );
  for (const sql of countPayloadsSql('_wh_repeat_payloads')) await run(context, sql);
  // The listing's last payload: its last stored item, or the stream event its items repeat (then
  // the next pass finds it in the mark, once the state's winner is no longer the event).
  await run(
    context,
    `INSERT INTO listing_payload_marks
     SELECT * FROM (
       SELECT l, arg_max(h, o) AS h, arg_max(CASE WHEN repeat THEN same.v ELSE v END, o) AS v,
              arg_max(CASE WHEN repeat THEN same.p ELSE p END, o) AS p
       FROM _wh_judged WHERE NOT repeat OR same.v = 'stream' GROUP BY l
     ) n
     WHERE NOT EXISTS (SELECT 1 FROM listing_payload_marks m WHERE m.listing_id = n.l AND m.via = n.v AND m.pass_id = n.p)
     ON CONFLICT (listing_id) DO UPDATE SET data_md5 = excluded.data_md5, via = excluded.via, pass_id = excluded.pass_id`,
  );
  for (const table of [
    '_wh_observation_rows',
    '_wh_raw_observations',
    '_wh_seen',
    '_wh_judged',
    '_wh_repeat_payloads',
  ])
    await run(context, `DROP TABLE ${table}`);
}

/**
 * The batch's items with an id, first per (via, pass, listing) and not landed before, judged in
 * `_wh_judged`: `repeat` when byte-identical to the listing's last payload landed (the batch's
 * previous one; else its mark, or the stream event the live set's state has as the listing's
 * winning sighting, compared by md5), with `same`, the (via, pass) of the row holding that text:
 * (`stream`, event id) for an event. A poll usually sees a listing the stream just announced, with
 * its bytes; the event's md5 is the state's (see `live-set.ts`), so no event is read here, and
 * landing events costs nothing more.
 */
const JUDGE_REPEATS: readonly string[] = [
  `CREATE OR REPLACE TEMP TABLE _wh_seen AS
   SELECT s.*, md5_number(s.d) AS h FROM _wh_observation_rows s
   WHERE l IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM raw_listing_observations__hot r WHERE r.via = s.v AND r.pass_id = s.p AND r.listing_id = s.l)
     AND NOT EXISTS (SELECT 1 FROM raw_listing_repeats__hot r WHERE r.via = s.v AND r.pass_id = s.p AND r.listing_id = s.l)
   QUALIFY row_number() OVER (PARTITION BY v, p, l ORDER BY o) = 1`,
  `CREATE OR REPLACE TEMP TABLE _wh_judged AS
   SELECT * EXCLUDE (known), coalesce(last_value(CASE WHEN NOT repeat THEN {'v': v, 'p': p} END IGNORE NULLS) OVER (
                        PARTITION BY l ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                      known) AS same
   FROM (
     SELECT *, coalesce(d = lag(d) OVER (PARTITION BY l ORDER BY o), known IS NOT NULL) AS repeat
     FROM (
       SELECT s.*, CASE WHEN s.h = m.data_md5 THEN {'v': m.via, 'p': m.pass_id}
                        WHEN s.h = e.winner_md5 THEN {'v': 'stream', 'p': e.event_id} END AS known
       FROM _wh_seen s
       LEFT JOIN listing_payload_marks m ON m.listing_id = s.l
       LEFT JOIN live_set_state e ON e.listing_id = s.l AND e.via IS NULL AND e.event_id IS NOT NULL
     )
   )`,
];
