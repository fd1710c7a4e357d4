/** Lands stream events: the event log, deduplicated by each log's watermark, and their effect on the live set. */
import type { Listing } from '../contract/listing.js';
import { appendText, appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import {
  type LandingContext,
  LISTING_JSON_STRUCTURE,
  listingColumnList,
  msToTimestamp,
  run,
  selectListingColumns,
} from './sql.js';

/** What every stream event carries. Times are epoch milliseconds. */
interface StreamEventFields {
  /**
   * SSE event id, opaque: an id landed before is skipped, so replaying events after a crash is
   * harmless. Ids that end in a position after a log (`abcdefgh-123`), rising as the stream reads
   * on, are recognised as new without a look-up (see `keepFreshEvents`).
   */
  eventId: string;
  kind: 'new' | 'gone';
  appId: number;
  receivedAt: number;
}

/**
 * One event of the listing stream, as received: either its data as the stream sent it (`data`,
 * the listing's JSON for `new`, `{"id":…}` for `gone`, as text or UTF-8 bytes), which DuckDB parses
 * while landing so the collector does no per-event JavaScript work on it, or already parsed
 * (`listingId` and `listing`, null for `gone`). Either way the listing must have every field of
 * the contract with the right type, else the whole write fails.
 */
export type StreamEventRow = StreamEventFields &
  (
    | { data: string | Buffer; listingId?: undefined; listing?: undefined }
    | { data?: undefined; listingId: string; listing: Listing | null }
  );

/** The staging table the Appender fills: one row per event of the batch, in order, the data as bytes. */
const STAGED_COLUMNS = {
  o: 'INTEGER',
  e: 'VARCHAR',
  k: 'VARCHAR',
  l: 'VARCHAR',
  a: 'INTEGER',
  t: 'DOUBLE',
  d: 'BLOB',
};

/**
 * Lands `events` in order. An event whose id landed before (or earlier in the same list) is
 * skipped entirely, so a replay changes nothing; each log's watermark (the highest position landed)
 * rises in the same transaction. Of the rest, a `new` event upserts
 * its listing in `live_listings` (keeping `first_seen_at` when the row exists, `last_seen_at` =
 * received time, `last_event_id` set) and a `gone` event deletes it. The rows reach DuckDB through
 * the Appender into an unindexed staging table; parsing, deduplication and the merge are set-wise
 * SQL, and `listing_events` has no index to maintain.
 */
async function landEvents(context: LandingContext, events: readonly StreamEventRow[]): Promise<void> {
  if (events.length === 0) return;
  await appendToTemp(context, '_wh_event_rows', STAGED_COLUMNS, events, (appender, e, i) => {
    appender.appendInteger(i);
    appender.appendVarchar(e.eventId);
    appender.appendVarchar(e.kind);
    appendText(appender, e.listingId);
    appender.appendInteger(e.appId);
    appender.appendDouble(e.receivedAt);
    const data = e.data ?? (e.listing ? JSON.stringify(e.listing) : null);
    if (data === null) appender.appendNull();
    else appender.appendBlob(typeof data === 'string' ? Buffer.from(data) : data);
  });
  await keepFreshEvents(context);
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_events AS
     SELECT o AS ord, e AS event_id, k AS kind, coalesce(l, x.id, json_extract_string(decode(d), '$.id')) AS listing_id,
            a AS app_id, ${selectListingColumns('x')}, ${msToTimestamp('t')} AS received_at
     FROM (
       SELECT *, CASE WHEN k = 'new' THEN from_json_strict(decode(d), '${LISTING_JSON_STRUCTURE}') END AS x
       FROM _wh_event_rows
       WHERE o IN (SELECT o FROM _wh_fresh)
     )`,
  );
  // The raw rows are parsed: free their text before the inserts.
  await run(context, 'DROP TABLE _wh_event_rows');
  const landed = await run(
    context,
    `INSERT INTO listing_events (event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, load_id, ingested_at)
     SELECT event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, $load, ${msToTimestamp('$now')}
     FROM _wh_events`,
    { load: context.loadId, now: context.now },
  );
  context.count('listing_events', landed);
  if (landed > 0) {
    await run(
      context,
      `INSERT INTO event_watermarks (log, position, load_id, ingested_at)
       SELECT log, max(position), $load, ${msToTimestamp('$now')} FROM _wh_fresh GROUP BY log
       ON CONFLICT (log) DO UPDATE SET position = greatest(position, excluded.position), load_id = excluded.load_id,
                                       ingested_at = excluded.ingested_at`,
      { load: context.loadId, now: context.now },
    );
    await applyToLiveListings(context);
  }
  await run(context, 'DROP TABLE _wh_fresh');
  await run(context, 'DROP TABLE _wh_ids');
  await run(context, 'DROP TABLE _wh_events');
}

/**
 * Fills `_wh_fresh` with the staged events not landed before: each id's first occurrence in the
 * batch, split into its log and position. An id above its log's watermark is new without a look-up,
 * which is every event of a stream read in order. Ids are opaque to the API, so one at or below the
 * watermark (a replay, or another deployment's ids that do not rise) is looked up in the event log:
 * a scan of `listing_events` paid only by a write that holds such ids.
 */
async function keepFreshEvents(context: LandingContext): Promise<void> {
  for (const table of ['_wh_ids', '_wh_fresh']) {
    await run(
      context,
      `CREATE OR REPLACE TEMP TABLE ${table} (o INTEGER, event_id VARCHAR, log VARCHAR, position BIGINT)`,
    );
  }
  const ids = await run(
    context,
    `INSERT INTO _wh_ids
     SELECT o, e, log, coalesce(try_cast(nullif(e[length(log) + 1:], '') AS BIGINT), 0)
     FROM (SELECT min(o) AS o, e, rtrim(e, '0123456789') AS log FROM _wh_event_rows GROUP BY e)`,
  );
  const aboveWatermark = await run(
    context,
    `INSERT INTO _wh_fresh
     SELECT i.* FROM _wh_ids i LEFT JOIN event_watermarks w ON w.log = i.log
     WHERE i.position > coalesce(w.position, -1)`,
  );
  if (aboveWatermark === ids) return;
  await run(
    context,
    `INSERT INTO _wh_fresh
     SELECT i.* FROM _wh_ids i
     ANTI JOIN _wh_fresh f ON f.o = i.o
     ANTI JOIN listing_events l ON l.event_id = i.event_id`,
  );
}

/** The batch's `events`: the stream's events, applied first and in order. */
export const eventsLander = defineLander({
  field: 'events',
  merge: 'ordered',
  rows: (events: StreamEventRow[]) => events.length,
  land: landEvents,
});

/**
 * Applies the fresh events of `_wh_events` to the live set as if one at a time: a listing whose
 * events include a `gone` is deleted first; a listing whose last event is `new` is then upserted
 * with the fields of that event and, as first seen, the first `new` after its last `gone` (or the
 * live row's when the batch has no `gone` for it).
 */
async function applyToLiveListings(context: LandingContext): Promise<void> {
  // Per listing, on the narrow columns: its last `gone` and its first and last `new` after it.
  // Its row as it ends is its last such `new`, first seen when its live row (only without a `gone`)
  // was, else at the first such `new`.
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_live AS
     WITH gone AS (
       SELECT listing_id, max(ord) FILTER (WHERE kind = 'gone') AS gone_ord FROM _wh_events GROUP BY listing_id
     ), news AS (
       SELECT e.listing_id, g.gone_ord, max(e.ord) AS last_ord, arg_min(e.received_at, e.ord) AS first_seen_at
       FROM _wh_events e JOIN gone g ON g.listing_id = e.listing_id
       WHERE e.kind = 'new' AND e.ord > coalesce(g.gone_ord, -1)
       GROUP BY e.listing_id, g.gone_ord
     )
     SELECT n.listing_id, n.app_id, ${listingColumnList('n')},
            coalesce(CASE WHEN s.gone_ord IS NULL THEN l.first_seen_at END, s.first_seen_at) AS first_seen_at,
            n.received_at AS last_seen_at, n.event_id AS last_event_id, $source AS source, $load AS load_id,
            ${msToTimestamp('$now')} AS ingested_at
     FROM news s
     JOIN _wh_events n ON n.ord = s.last_ord
     LEFT JOIN live_listings l ON l.listing_id = s.listing_id`,
    { source: context.source, load: context.loadId, now: context.now },
  );
  // The rows replace the live ones by one delete (also of listings that end gone) and a plain
  // insert: DuckDB's ON CONFLICT DO UPDATE costs more CPU and WAL.
  const deleted = await run(
    context,
    `DELETE FROM live_listings WHERE listing_id IN (
       SELECT listing_id FROM _wh_events WHERE kind = 'gone' UNION ALL SELECT listing_id FROM _wh_live
     )`,
  );
  const upserted = await run(
    context,
    `INSERT INTO live_listings (listing_id, app_id, ${listingColumnList()}, first_seen_at, last_seen_at,
                                last_event_id, source, load_id, ingested_at)
     SELECT * FROM _wh_live`,
  );
  await run(context, 'DROP TABLE _wh_live');
  context.count('live_listings', deleted + upserted);
}
