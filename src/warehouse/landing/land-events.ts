/** Lands stream events raw: the event log as sent, deduplicated by each log's watermark. */
import type { Listing } from '../../contract/listing.js';
import { appendText, appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

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
 * the listing's JSON for `new`, `{"id":…}` for `gone`, as text or UTF-8 bytes), landed as it is
 * whatever it holds, or already parsed (`listingId` and `listing`, null for `gone`), landed as its
 * JSON.
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
 * Lands `events` in order in `raw_listing_events`, their data as sent: nothing is parsed but the
 * ids, so no payload can fail the write (typing happens in the views and models). An event whose
 * id landed before (or earlier in the same list) is skipped, so a replay changes nothing; each
 * log's watermark (the highest position landed) rises in the same transaction. What the events
 * carry is counted after landing (see `payload-checks.ts`).
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
    const data = e.data ?? JSON.stringify(e.listing ?? { id: e.listingId });
    appender.appendBlob(typeof data === 'string' ? Buffer.from(data) : data);
  });
  await keepFreshEvents(context);
  // Straight from the staged rows: a copy in between cost a third of the insert's time again.
  const landed = await run(
    context,
    `INSERT INTO raw_listing_events__hot BY NAME
     SELECT e AS event_id, k AS kind, a AS app_id, l AS listing_id, try(decode(d)) AS data,
            ${msToTimestamp('t')} AS received_at, $load AS load_id, ${msToTimestamp('$now')} AS ingested_at
     FROM _wh_event_rows WHERE o IN (SELECT o FROM _wh_fresh)`,
    { load: context.loadId, now: context.now },
  );
  await run(context, 'DROP TABLE _wh_event_rows');
  context.count('raw_listing_events', landed);
  if (landed > 0) {
    await run(
      context,
      `INSERT INTO event_watermarks (log, position, load_id, ingested_at)
       SELECT log, max(position), $load, ${msToTimestamp('$now')} FROM _wh_fresh GROUP BY log
       ON CONFLICT (log) DO UPDATE SET position = greatest(position, excluded.position), load_id = excluded.load_id,
                                       ingested_at = excluded.ingested_at`,
      { load: context.loadId, now: context.now },
    );
  }
  for (const table of ['_wh_fresh', '_wh_ids']) await run(context, `DROP TABLE ${table}`);
}

/**
 * Fills `_wh_fresh` with the staged events not landed before: each id's first occurrence in the
 * batch, split into its log and position. An id above its log's watermark is new without a look-up,
 * which is every event of a stream read in order. Ids are opaque to the API, so one at or below the
 * watermark (a replay, or another deployment's ids that do not rise) is looked up in the event log:
 * a scan of the landed events paid only by a write that holds such ids.
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
     ANTI JOIN raw_listing_events__hot r ON r.event_id = i.event_id`,
  );
  await dropEventsInLake(context);
}

/**
 * Drops from `_wh_fresh` the events at or below their log's watermark that are in the lake, read
 * from the lake's files of the days whose range (`lake_event_ranges`) holds their position, or of
 * every day for an id naming no position (see `lake/event-ranges.ts`): none read when no event of
 * the write falls in a range, so a stream read in order reads no parquet.
 */
async function dropEventsInLake(context: LandingContext): Promise<void> {
  const below = `FROM _wh_fresh c JOIN event_watermarks w ON w.log = c.log AND c.position <= w.position`;
  const files = (
    await context.connection.runAndReadAll(
      `SELECT DISTINCT f.file FROM (
         SELECT g.day ${below}
         JOIN lake_event_ranges g ON g.log = c.log AND c.position BETWEEN g.lo AND g.hi
         WHERE c.event_id = c.log || CAST(c.position AS VARCHAR)
         UNION ALL
         SELECT NULL ${below} WHERE c.event_id <> c.log || CAST(c.position AS VARCHAR)
       ) d JOIN lake_files f ON f.relation = 'raw_listing_events' AND (d.day IS NULL OR f.day = d.day)
       ORDER BY f.file`,
    )
  ).getRowObjects();
  if (files.length === 0) return;
  const list = files.map((f) => `'${String(f.file).replaceAll("'", "''")}'`).join(', ');
  await run(
    context,
    `DELETE FROM _wh_fresh WHERE event_id IN (
       SELECT c.event_id ${below}
       SEMI JOIN read_parquet([${list}], union_by_name = true) l ON l.event_id = c.event_id)`,
  );
}

/** The batch's `events`: the stream's events, applied first and in order. */
export const eventsLander = defineLander({
  field: 'events',
  merge: 'ordered',
  rows: (events: StreamEventRow[]) => events.length,
  land: landEvents,
});
