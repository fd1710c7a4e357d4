/** Lands stream events: the event log, deduplicated on event id, and their effect on the live set. */
import type { Listing } from '../contract/listing.js';
import { defineLander } from './lander.js';
import {
  firstOfEachKey,
  type LandingContext,
  LISTING_TYPE,
  listingColumnList,
  msToTimestamp,
  run,
  selectListingColumns,
  setListingColumns,
} from './sql.js';
import { stageFreshRows } from './staging.js';

/** One event of the listing stream, as received. Times are epoch milliseconds. */
export interface StreamEventRow {
  /** SSE event id; an event already landed is skipped, so replaying one after a crash is harmless. */
  eventId: string;
  kind: 'new' | 'gone';
  listingId: string;
  appId: number;
  /** The listing of a `new` event; null for `gone`. */
  listing: Listing | null;
  receivedAt: number;
}

const EVENT_COLUMNS = {
  o: 'BIGINT',
  e: 'VARCHAR',
  k: 'VARCHAR',
  l: 'VARCHAR',
  a: 'INTEGER',
  t: 'DOUBLE',
  x: LISTING_TYPE,
};

/**
 * Lands `events` in order. Events whose id is already in `listing_events` (or earlier in the same
 * list) are skipped entirely, so a replay changes nothing. Of the rest, a `new` event upserts its
 * listing in `live_listings` (keeping `first_seen_at` when the row exists, `last_seen_at` =
 * received time, `last_event_id` set) and a `gone` event deletes it.
 */
async function landEvents(context: LandingContext, events: readonly StreamEventRow[]): Promise<void> {
  if (events.length === 0) return;
  const rows = firstOfEachKey(events, (e) => e.eventId).map((e, i) => ({
    o: i,
    e: e.eventId,
    k: e.kind,
    l: e.listingId,
    a: e.appId,
    t: e.receivedAt,
    x: e.kind === 'new' ? e.listing : null,
  }));
  await stageFreshRows(
    context,
    '_wh_events',
    rows,
    EVENT_COLUMNS,
    `o AS ord, e AS event_id, k AS kind, l AS listing_id, a AS app_id,
     ${selectListingColumns('x')}, ${msToTimestamp('t')} AS received_at`,
    'SELECT 1 FROM listing_events e WHERE e.event_id = s.event_id',
  );
  const landed = await run(
    context,
    `INSERT INTO listing_events (event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, load_id, ingested_at)
     SELECT event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, $load, ${msToTimestamp('$now')}
     FROM _wh_events`,
    { load: context.loadId, now: context.now },
  );
  context.count('listing_events', landed);
  if (landed > 0) await applyToLiveListings(context);
  await run(context, 'DROP TABLE _wh_events');
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
 * with the fields of that event and, as first seen, the first `new` after its last `gone`.
 */
async function applyToLiveListings(context: LandingContext): Promise<void> {
  const deleted = await run(
    context,
    `DELETE FROM live_listings WHERE listing_id IN (SELECT listing_id FROM _wh_events WHERE kind = 'gone')`,
  );
  const upserted = await run(
    context,
    `INSERT INTO live_listings (listing_id, app_id, ${listingColumnList()}, first_seen_at, last_seen_at,
                                last_event_id, source, load_id, ingested_at)
     SELECT listing_id, app_id, ${listingColumnList()}, first_seen_at, received_at, event_id,
            $source, $load, ${msToTimestamp('$now')}
     FROM (
       SELECT *, arg_min(received_at, ord) OVER (PARTITION BY listing_id) AS first_seen_at
       FROM (
         SELECT * FROM _wh_events
         QUALIFY kind = 'new'
             AND ord > coalesce(max(CASE WHEN kind = 'gone' THEN ord END) OVER (PARTITION BY listing_id), -1)
       )
       QUALIFY row_number() OVER (PARTITION BY listing_id ORDER BY ord DESC) = 1
     )
     ON CONFLICT (listing_id) DO UPDATE SET
       app_id = excluded.app_id,
       ${setListingColumns()},
       last_seen_at = excluded.last_seen_at,
       last_event_id = excluded.last_event_id,
       source = excluded.source,
       load_id = excluded.load_id,
       ingested_at = excluded.ingested_at`,
    { source: context.source, load: context.loadId, now: context.now },
  );
  context.count('live_listings', deleted + upserted);
}
