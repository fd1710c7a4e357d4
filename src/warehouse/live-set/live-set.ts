/**
 * The live set kept current as data lands. `live_set_state` holds, per listing ever seen, its last
 * departure and the summary of its stay since (first sighting, winning sighting with its fields,
 * last stream event); `live_set_pending` lists the loads it does not cover yet. The views
 * `live_set_changes` (the state of every listing those loads touch, merged with them) and
 * `live_listings` (the state with those changes applied) are exact at any moment; the batch writer
 * applies the changes to the state after each landing (`applyLanded`), so a read merges a small
 * tail instead of the whole history.
 *
 * The rules are the ones of the whole history: per listing, its sightings (`new` events and
 * observations) after its last departure (a `gone` event or a sweep's verdict), by when they
 * happened (stream events of one instant by their log position; a sighting and a departure of one
 * instant: the departure wins). The state stands in for the history by its extreme sightings (the
 * winner, the first, the last event) and its departure, which is exact except when a departure
 * landing late falls inside a stay: then the new first sighting is looked up in the history, for
 * those listings alone.
 */
import type { Database } from '../../shared/database.js';
import { listingColumnList } from '../typing/listing-shape.js';
import { countPayloadsSql } from '../typing/payload-checks.js';
import { viewSqlOver } from '../typing/view-files.js';

/** A SQL expression of an event id's position in its log (null without trailing digits). */
const POSITION = "try_cast(nullif(event_id[length(rtrim(event_id, '0123456789')) + 1:], '') AS BIGINT)";

/** Columns of a happening: a sighting or a departure of a listing, from what landed or from the state. */
const HAPPENING =
  'listing_id, app_id, departure, happened_at, pos, event_id, via, pass_id, load_id, ingested_at, role';

/** Rows of `table` landed by a pending load (the join also lets DuckDB skip older row groups). */
function pendingRows(table: string): string {
  return `(SELECT t.* FROM ${table} t SEMI JOIN live_set_pending p ON p.load_id = t.load_id AND p.ingested_at = t.ingested_at)`;
}

/**
 * The sightings of page items in `raw` and `repeats` (relations with raw_listing_observations' and
 * raw_listing_repeats' columns): the envelope alone, so no item is typed to be ordered.
 */
function observationSightings(raw: string, repeats: string): string {
  const columns = 'listing_id, app_id, observed_at, via, pass_id, load_id, ingested_at';
  return `(SELECT ${columns} FROM ${raw} WHERE listing_id IS NOT NULL UNION ALL SELECT ${columns} FROM ${repeats})`;
}

/** Page items of `from` (pending rows) in a winning pass of their listing: the only ones typed. */
function winningRows(from: string): string {
  return `(SELECT o.* FROM ${from} o SEMI JOIN spans w
           ON w.winner_role IS NULL AND w.listing_id = o.listing_id AND w.via = o.via AND w.pass_id = o.pass_id)`;
}

/** The sightings of page items landed by a pending load. */
const PENDING_OBSERVATIONS = observationSightings(
  pendingRows('raw_listing_observations__hot'),
  pendingRows('raw_listing_repeats__hot'),
);

/** Stream events of `from` as happenings; only the id is read from each event's data. */
function eventHappenings(from: string): string {
  return `
    SELECT listing_id, app_id, kind = 'gone', received_at, ${POSITION}, CASE WHEN kind = 'new' THEN event_id END,
           NULL, NULL, load_id, ingested_at, NULL
    FROM (SELECT event_id, kind, app_id, received_at, load_id, ingested_at,
                 coalesce(listing_id, CASE WHEN json_type(id) = 'VARCHAR' THEN id ->> '$' END) AS listing_id
          FROM (SELECT *, try(json_extract(data, '$.id')) AS id FROM ${from} WHERE kind IN ('new', 'gone')))
    WHERE listing_id IS NOT NULL`;
}

/** Every happening of the landed rows of `events`, `observations` and `gone` (relations). */
function happenings(events: string, observations: string, gone: string): string {
  return `
    ${eventHappenings(events)}
    UNION ALL
    SELECT listing_id, app_id, false, observed_at, NULL, NULL, via, pass_id, load_id, ingested_at, NULL FROM ${observations}
    UNION ALL
    SELECT listing_id, app_id, true, detected_at, NULL, NULL, NULL, NULL, load_id, ingested_at, NULL FROM ${gone}`;
}

/** Whether a happening `h` comes after the departure of `d` (null: none): the departure wins a tie without positions. */
function afterDeparture(h: string, d: string): string {
  return `(${d}.left_at IS NULL OR ${h}.happened_at > ${d}.left_at OR (${h}.happened_at = ${d}.left_at AND ${h}.pos > ${d}.left_pos))`;
}

/** The state rows of the listings touched by pending loads, as happenings standing in for their history. */
const PRIOR_HAPPENINGS = `
  SELECT listing_id, app_id, true, left_at, left_pos, NULL, NULL, NULL, NULL, NULL, 'left' FROM prior WHERE left_at IS NOT NULL
  UNION ALL
  SELECT listing_id, app_id, false, last_seen_at, seen_pos, event_id, via, pass_id, load_id, ingested_at, 'winner'
  FROM prior WHERE last_seen_at IS NOT NULL
  UNION ALL
  SELECT listing_id, app_id, false, first_seen_at, first_pos, NULL, NULL, NULL, NULL, NULL, 'first'
  FROM prior WHERE first_seen_at IS NOT NULL
  UNION ALL
  SELECT listing_id, app_id, false, last_event_at, last_event_pos, last_event_id, NULL, NULL, NULL, NULL, 'last_event'
  FROM prior WHERE last_event_id IS NOT NULL`;

/** The pending loads' happenings. */
const TAIL = `
  SELECT ${HAPPENING} FROM (${happenings(
    pendingRows('raw_listing_events__hot'),
    PENDING_OBSERVATIONS,
    pendingRows('listing_gone'),
  )}) AS h(${HAPPENING})`;

/** The state rows of the listings of `tail`. */
const PRIOR = 'SELECT * FROM live_set_state WHERE listing_id IN (SELECT listing_id FROM tail)';

/** The live set's horizon: the state no longer holds a departure before it (see {@link pruneSteps}). */
const PRUNED_BEFORE = '(SELECT max(pruned_before) FROM live_set_horizon)';

/**
 * The departures (`gone` events and verdicts; no page item is read), from the whole history (the
 * lake's days too), of the listings with a happening of `tail` at or before the horizon: the state
 * may have dropped such a listing's departure, which that happening could precede. None read when
 * no happening is that old ({@link fewValues}), as in a stream read in order.
 */
const PRUNED_DEPARTURES = `
  pruned_departures AS (
    SELECT listing_id, app_id, departure, happened_at, pos, NULL, NULL, NULL, NULL, NULL, 'left'
    FROM (${happenings(
      "(SELECT * FROM raw_listing_events WHERE kind = 'gone')",
      observationSightings(
        '(SELECT * FROM raw_listing_observations__hot WHERE false)',
        '(SELECT * FROM raw_listing_repeats__hot WHERE false)',
      ),
      'listing_gone',
    )}) AS a(${HAPPENING})
    WHERE listing_id IN ${fewValues('listing_id', `tail WHERE happened_at <= ${PRUNED_BEFORE}`)}
  )`;

/**
 * `spans`, the state of every listing of `tail` without the winner's fields: the `prior` state's
 * stand-ins, the departures it dropped that a happening could precede, and the pending happenings
 * merged by the rules above, with `kept_first` and `kept_winner` saying which of the prior stay's
 * stand-ins are still in the stay.
 */
const SPANS = `
  ${PRUNED_DEPARTURES},
  merged AS (
    SELECT * FROM tail
    UNION ALL
    SELECT * FROM (${PRIOR_HAPPENINGS}) AS p(${HAPPENING})
    UNION ALL
    SELECT * FROM pruned_departures
  ),
  departed AS (
    SELECT listing_id, happened_at AS left_at, pos AS left_pos FROM merged WHERE departure
    QUALIFY row_number() OVER (PARTITION BY listing_id ORDER BY happened_at DESC, pos DESC NULLS FIRST) = 1
  ),
  stay AS (
    SELECT h.* FROM merged h LEFT JOIN departed d ON d.listing_id = h.listing_id
    WHERE NOT h.departure AND ${afterDeparture('h', 'd')}
  ),
  winners AS (
    SELECT * FROM stay WHERE role IS NULL OR role = 'winner'
    QUALIFY row_number() OVER (PARTITION BY listing_id
      ORDER BY happened_at DESC, pos DESC NULLS LAST, ingested_at DESC, event_id DESC NULLS LAST, via, pass_id) = 1
  ),
  stays AS (
    SELECT listing_id, min(happened_at) AS first_seen_at,
           first(pos ORDER BY happened_at, pos DESC NULLS LAST) AS first_pos,
           first({'at': happened_at, 'pos': pos, 'id': event_id} ORDER BY happened_at DESC, pos DESC NULLS LAST)
             FILTER (WHERE event_id IS NOT NULL) AS last_event,
           bool_or(role = 'first') AS kept_first, bool_or(role = 'winner') AS kept_winner
    FROM stay GROUP BY listing_id
  ),
  spans AS (
    SELECT m.listing_id, coalesce(w.app_id, m.app_id) AS app_id, d.left_at, d.left_pos,
           s.first_seen_at, s.first_pos, w.happened_at AS last_seen_at, w.pos AS seen_pos, w.event_id, w.via, w.pass_id,
           s.last_event.at AS last_event_at, s.last_event.pos AS last_event_pos, s.last_event.id AS last_event_id,
           w.load_id, w.ingested_at, w.role AS winner_role,
           coalesce(s.kept_winner AND NOT s.kept_first, false) AS cut_short
    FROM (SELECT listing_id, arg_max(app_id, happened_at) AS app_id FROM merged GROUP BY listing_id) m
    LEFT JOIN departed d ON d.listing_id = m.listing_id
    LEFT JOIN stays s ON s.listing_id = m.listing_id
    LEFT JOIN winners w ON w.listing_id = m.listing_id
  )`;

/** `spans` of every listing touched by a pending load, with `tail` and `prior`. */
const MERGED_SPANS = `
  tail AS (${TAIL}),
  prior AS (${PRIOR}),
  ${SPANS}`;

/**
 * `column` of `from` as a subquery for `IN`, given as the unnest of one list: DuckDB estimates it
 * at one row, so it builds its hash table on these few values and, when there are none, stops
 * before reading the big relation probed. Asked `IN (SELECT column FROM from)`, it could estimate
 * the big side smaller and hash all of it (see `CUT_FIRSTS`).
 */
function fewValues(column: string, from: string): string {
  return `(SELECT unnest(list(DISTINCT ${column})) FROM ${from})`;
}

/**
 * A stay a late departure cut short: its first sighting after the departure, from the whole
 * history of those listings alone (the lake's days too), read only when there are some ({@link fewValues}). Asked for
 * them plainly, DuckDB hashed the whole history: every read of `live_listings` scanned (and parsed
 * the id of) every landed event, 67 s at 10,000,000 events.
 */
const CUT_FIRSTS = `
  cut_firsts AS (
    SELECT h.listing_id, min(h.happened_at) AS first_seen_at, first(h.pos ORDER BY h.happened_at, h.pos DESC NULLS LAST) AS first_pos
    FROM (
      SELECT * FROM (${happenings(
        'raw_listing_events',
        observationSightings('raw_listing_observations', 'raw_listing_repeats'),
        'listing_gone',
      )}) AS a(${HAPPENING})
      WHERE NOT departure AND listing_id IN ${fewValues('listing_id', 'spans WHERE cut_short')}
    ) h JOIN spans d ON d.listing_id = h.listing_id
    WHERE ${afterDeparture('h', 'd')}
    GROUP BY h.listing_id
  )`;

/** The pending repeats in a winning pass of their listing. */
const WINNING_REPEATS = winningRows(pendingRows('raw_listing_repeats__hot'));

/**
 * Where the winners' texts come from. `known_repeats`: the winning repeats of the text the state
 * typed its winner from (the row a repeat points to is its listing's payload mark, whose md5 is
 * the winner's): a sweep's usual repeat, no text read. `winning_items`: the pending page items in
 * a winning pass of their listing, with raw_listing_observations' columns; any other repeat (the
 * listing changed since the state kept the md5, or its first sighting since) with the text of the
 * row it repeats, a page item or a stream event (`same_via` `stream`, `same_pass_id` its id),
 * looked up in the whole history (the row may be in the lake) for those rows alone, and not read
 * at all when there are none ({@link fewValues}).
 */
const WINNER_TEXTS = `
  known_repeats AS (
    SELECT s.listing_id, s.via, s.pass_id
    FROM ${WINNING_REPEATS} s
    JOIN prior p ON p.listing_id = s.listing_id AND p.live
    JOIN listing_payload_marks m ON m.listing_id = s.listing_id AND m.via = s.same_via AND m.pass_id = s.same_pass_id
      AND m.data_md5 = p.winner_md5
  ),
  looked_up_repeats AS MATERIALIZED (
    SELECT * FROM ${WINNING_REPEATS} s
    ANTI JOIN known_repeats k ON k.listing_id = s.listing_id AND k.via = s.via AND k.pass_id = s.pass_id
  ),
  winning_items AS (
    SELECT * FROM ${winningRows(pendingRows('raw_listing_observations__hot'))}
    UNION ALL BY NAME
    SELECT s.via, s.pass_id, s.page, s.item, s.listing_id, s.app_id, d.data, s.observed_at, s.load_id, s.ingested_at
    FROM looked_up_repeats s
    JOIN (SELECT listing_id, via, pass_id, data FROM raw_listing_observations
          WHERE listing_id IN ${fewValues('listing_id', "looked_up_repeats WHERE same_via <> 'stream'")}) d
      ON d.listing_id = s.listing_id AND d.via = s.same_via AND d.pass_id = s.same_pass_id
    UNION ALL BY NAME
    SELECT s.via, s.pass_id, s.page, s.item, s.listing_id, s.app_id, d.data, s.observed_at, s.load_id, s.ingested_at
    FROM looked_up_repeats s
    JOIN (SELECT event_id, data FROM raw_listing_events
          WHERE event_id IN ${fewValues('same_pass_id', "looked_up_repeats WHERE same_via = 'stream'")}) d
      ON s.same_via = 'stream' AND d.event_id = s.same_pass_id
  )`;

/**
 * The fields of each winner, with the md5 of the text they were typed from (a stream event's too,
 * so a page item repeating that event is known from the state): kept in the state (the prior
 * winner, or a repeat of its text), typed from its pending event, or from its page item's text.
 */
const WINNER_FIELDS = `
  ${WINNER_TEXTS},
  winner_fields AS (
    SELECT w.listing_id, ${listingColumnList('p')}, p.winner_md5
    FROM spans w JOIN prior p ON w.winner_role = 'winner' AND p.listing_id = w.listing_id AND p.live
    UNION ALL
    SELECT w.listing_id, ${listingColumnList('p')}, p.winner_md5
    FROM spans w
    JOIN known_repeats k ON w.winner_role IS NULL AND k.listing_id = w.listing_id AND k.via = w.via AND k.pass_id = w.pass_id
    JOIN prior p ON p.listing_id = w.listing_id
    UNION ALL
    SELECT w.listing_id, ${listingColumnList('f')}, md5_number(f.raw)
    FROM spans w JOIN (
      SELECT event_id, ${listingColumnList()}, raw
      FROM (${viewSqlOver('listing_events_typed', { raw_listing_events: `(SELECT * FROM ${pendingRows('raw_listing_events__hot')} WHERE event_id IN (SELECT event_id FROM spans))` })})
    ) f ON w.winner_role IS NULL AND f.event_id = w.event_id
    UNION ALL
    SELECT w.listing_id, ${listingColumnList('o')}, md5_number(o.raw)
    FROM spans w JOIN (
      SELECT listing_id, via, pass_id, observed_at, ${listingColumnList()}, raw
      FROM (${viewSqlOver('listing_observations_typed', {
        raw_listing_observations: '(SELECT * FROM winning_items)',
        raw_listing_repeats: '(SELECT * FROM raw_listing_repeats__hot WHERE false)',
        raw_listing_events: '(SELECT * FROM raw_listing_events__hot WHERE false)',
      })})
    ) o
      ON w.winner_role IS NULL AND o.listing_id = w.listing_id AND o.via = w.via AND o.pass_id = w.pass_id
         AND o.observed_at = w.last_seen_at
  )`;

/** State rows (`live_set_state`'s columns) from `spans`, `prior`, `cut_firsts` and `winner_fields`. */
const CHANGES = `
  SELECT s.listing_id, s.app_id, s.left_at, s.left_pos, f.listing_id IS NOT NULL AS live,
         coalesce(c.first_seen_at, s.first_seen_at) AS first_seen_at,
         CASE WHEN c.listing_id IS NULL THEN s.first_pos ELSE c.first_pos END AS first_pos,
         s.last_seen_at, s.seen_pos, s.event_id, s.via, s.pass_id, s.last_event_at, s.last_event_pos, s.last_event_id,
         ${listingColumnList('f')}, f.winner_md5, s.load_id, s.ingested_at
  FROM spans s
  LEFT JOIN (SELECT * FROM winner_fields QUALIFY row_number() OVER (PARTITION BY listing_id) = 1) f
    ON f.listing_id = s.listing_id
  LEFT JOIN cut_firsts c ON c.listing_id = s.listing_id`;

/** State rows (`live_set_state`'s columns) of every listing a pending load touched. */
const LIVE_SET_CHANGES = `WITH ${MERGED_SPANS}, ${CUT_FIRSTS}, ${WINNER_FIELDS} ${CHANGES}`;

/**
 * The live set: the state's live listings no pending load touched, and the touched ones as merged.
 * Their loads' sources are looked up for their loads alone, not by a join that hashes every load
 * ever landed: a load starts when its rows land, so the join on both lets DuckDB skip the loads
 * older than the oldest live row (those ids are random: their range skips nothing); a row of the
 * former layout, landed at another time than its load began, looks its load up by id alone
 * ({@link fewValues}, none usually).
 */
const LIVE_LISTINGS = `
  WITH changes AS MATERIALIZED (SELECT * FROM live_set_changes),
  live AS MATERIALIZED (
    SELECT * FROM live_set_state WHERE live AND listing_id NOT IN (SELECT listing_id FROM changes)
    UNION ALL BY NAME
    SELECT * FROM changes WHERE live
  ),
  landed_then AS MATERIALIZED (
    SELECT s.listing_id, l.source FROM live s JOIN loads l ON l.load_id = s.load_id AND l.started_at = s.ingested_at
  )
  SELECT s.listing_id, s.app_id, ${listingColumnList('s')}, s.first_seen_at, s.last_seen_at, s.last_event_id,
         coalesce(t.source, l.source, 'stream') AS source, s.load_id, s.ingested_at
  FROM live s
  LEFT JOIN landed_then t ON t.listing_id = s.listing_id
  LEFT JOIN (SELECT load_id, source FROM loads
             WHERE load_id IN ${fewValues('load_id', 'live ANTI JOIN landed_then USING (listing_id)')}) l
    ON t.listing_id IS NULL AND l.load_id = s.load_id`;

/** The `listed_at` of every `new` stream event of the pending loads (typed as the views type it). */
const PENDING_LISTED = `
  SELECT app_id, try(try_cast(data ->> '$.listed_at' AS TIMESTAMPTZ) AT TIME ZONE 'UTC') AS listed_at
  FROM ${pendingRows('raw_listing_events__hot')} WHERE kind = 'new'`;

/**
 * A query of the newest `listed_at` of a `new` stream event of game `appId` ever landed, as epoch
 * ms in column `at` (null when none): the state's mark and the pending loads', no history read.
 */
export function newestListedSql(appId: number): string {
  return `SELECT epoch_ms(max(listed_at)) AS at FROM (
    SELECT newest_listed_at AS listed_at FROM live_set_marks WHERE app_id = ${Number(appId)}
    UNION ALL
    SELECT listed_at FROM (${PENDING_LISTED}) WHERE app_id = ${Number(appId)})`;
}

/** The derived views of the live set, in creation order. */
export const LIVE_SET_VIEWS: readonly (readonly [string, string])[] = [
  ['live_set_changes', LIVE_SET_CHANGES],
  ['live_listings', LIVE_LISTINGS],
];

/** The pending loads' stream events and page items, as `countPayloadsSql` counts them. */
const PENDING_PAYLOADS = `
  SELECT l.source, r.kind, r.received_at, r.load_id, r.ingested_at, r.data
  FROM ${pendingRows('raw_listing_events__hot')} r JOIN loads l ON l.load_id = r.load_id
  UNION ALL
  SELECT via, 'new', observed_at, load_id, ingested_at, data FROM ${pendingRows('raw_listing_observations__hot')}`;

/** The spans of the pending loads kept in `_live_spans`, with the state rows they merged in `_live_prior`. */
const SPANS_STEPS: readonly string[] = [
  `CREATE OR REPLACE TEMP TABLE _live_tail AS ${TAIL}`,
  'CREATE OR REPLACE TEMP TABLE _live_prior AS SELECT * FROM live_set_state WHERE listing_id IN (SELECT listing_id FROM _live_tail)',
  `CREATE OR REPLACE TEMP TABLE _live_spans AS
   WITH tail AS (SELECT * FROM _live_tail), prior AS (SELECT * FROM _live_prior), ${SPANS}
   SELECT * FROM spans`,
];

/** The changes of `_live_spans` kept in `_live_changes` (the history read only for a stay cut short). */
const CHANGES_STEP = `CREATE OR REPLACE TEMP TABLE _live_changes AS
  WITH spans AS (SELECT * FROM _live_spans), prior AS (SELECT * FROM _live_prior),
  ${CUT_FIRSTS}, ${WINNER_FIELDS} ${CHANGES}`;

/**
 * The state's columns that say when and by what a listing was seen and left, not what it is (the
 * winner's md5 too: a text that differs only where no column reads has the same fields).
 */
const SIGHTING_COLUMNS = [
  'left_at',
  'left_pos',
  'first_seen_at',
  'first_pos',
  'last_seen_at',
  'seen_pos',
  'event_id',
  'via',
  'pass_id',
  'last_event_at',
  'last_event_pos',
  'last_event_id',
  'winner_md5',
  'load_id',
  'ingested_at',
];

/** `_live_changes` written to the state, the newest `listed_at` per game raised, the loads no longer pending. */
const STORE_CHANGES: readonly string[] = [
  `INSERT INTO live_set_marks
   SELECT app_id, max(listed_at) FROM (${PENDING_LISTED}) GROUP BY app_id HAVING max(listed_at) IS NOT NULL
   ON CONFLICT (app_id) DO UPDATE SET newest_listed_at = greatest(newest_listed_at, excluded.newest_listed_at)`,
  // A listing seen again with the same fields (a sweep's repeat) changes only its sighting columns:
  // updated in place, they cost the write-ahead log a few bytes a listing instead of its whole row.
  `CREATE OR REPLACE TEMP TABLE _live_same AS
   SELECT c.listing_id FROM _live_changes c JOIN _live_prior p ON p.listing_id = c.listing_id
   WHERE (p.app_id, p.live, ${listingColumnList('p')}) IS NOT DISTINCT FROM (c.app_id, c.live, ${listingColumnList('c')})`,
  `UPDATE live_set_state s SET ${SIGHTING_COLUMNS.map((c) => `${c} = c.${c}`).join(', ')}
   FROM _live_changes c WHERE c.listing_id = s.listing_id AND c.listing_id IN (SELECT listing_id FROM _live_same)`,
  'DELETE FROM live_set_state WHERE listing_id IN (SELECT listing_id FROM _live_changes EXCEPT SELECT listing_id FROM _live_same)',
  'INSERT INTO live_set_state BY NAME SELECT * FROM _live_changes WHERE listing_id NOT IN (SELECT listing_id FROM _live_same)',
  'DELETE FROM live_set_pending WHERE load_id IN (SELECT load_id FROM _live_pending)',
];

/** The temp tables of an apply, dropped at its end. */
const DROP_STEPS: readonly string[] = [
  '_live_same',
  '_live_changes',
  '_live_spans',
  '_live_prior',
  '_live_tail',
  '_live_pending',
].map((t) => `DROP TABLE ${t}`);

/**
 * The horizon raised to the newest happening applied (or its landing, if sooner: a clock ahead
 * does not raise it) less `keptMs`, and the state's rows that say only that a listing left before
 * it dropped, with those listings' payload marks: the state and the marks hold the live listings
 * and the recent departures, so what an apply reads and rewrites follows the market's churn, not
 * every listing ever seen. Exact all the same: a happening at or before the horizon has its
 * listing's departures read from the history ({@link PRUNED_DEPARTURES}).
 */
function pruneSteps(keptMs: number): string[] {
  const departedOnly = `NOT live AND left_at < ${PRUNED_BEFORE}
    AND first_seen_at IS NULL AND last_seen_at IS NULL AND last_event_id IS NULL`;
  return [
    `UPDATE live_set_horizon SET pruned_before = greatest(coalesce(pruned_before, t.mark), t.mark)
     FROM (SELECT least(max(happened_at), max(ingested_at)) - to_milliseconds(${Math.max(0, Math.floor(keptMs))}) AS mark
           FROM _live_tail) t
     WHERE t.mark IS NOT NULL`,
    // A mark only spares storing an item's text again, and an item of a listing gone that long is
    // rare: it is then stored whole, and its state row and mark come and go again in its apply.
    // Kept, the marks grew with every listing ever swept.
    `DELETE FROM listing_payload_marks WHERE listing_id IN ${fewValues('listing_id', `live_set_state WHERE ${departedOnly}`)}`,
    `DELETE FROM live_set_state WHERE ${departedOnly}`,
  ];
}

/**
 * Brings the state up to date with the pending loads, inside the open transaction of `db` (the
 * writer connection): what their stream events and page items carry counted, the items under their
 * via (`payload-checks.ts`), the changes applied, the newest `listed_at` per game raised, the loads
 * no longer pending. The history is read only when a late departure cut a stay short.
 */
export async function applyPendingLoads(db: Pick<Database, 'run'>, keptMs: number): Promise<void> {
  await db.run('CREATE OR REPLACE TEMP TABLE _live_pending AS SELECT * FROM live_set_pending');
  // Read in place: a copy would hold every pending payload's text at once.
  for (const sql of countPayloadsSql(`(${PENDING_PAYLOADS})`)) await db.run(sql);
  for (const sql of SPANS_STEPS) await db.run(sql);
  await db.run(CHANGES_STEP);
  for (const sql of [...STORE_CHANGES, ...pruneSteps(keptMs), ...DROP_STEPS]) await db.run(sql);
}
