/**
 * The views analysts and models read over what landed, derived from the listing's shape and
 * created afresh at every read-write open (so a new field of the contract reaches them):
 * `listing_events_typed`, `listing_events`, `live_listings` and `rejected_payloads`.
 */
import type { Database } from '../shared/database.js';
import { listingColumnList } from './listing-shape.js';
import { rejectionReason, typedEventsSql } from './typed-events.js';

/** Columns of listing_events, in table order. */
const EVENT_COLUMNS = `event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, load_id, ingested_at`;

/** Every landed stream event typed: the typed landing layout's rows, then the raw events typed leniently. */
const LISTING_EVENTS_TYPED = `
  SELECT ${EVENT_COLUMNS}, CAST([] AS STRUCT(field VARCHAR, reason VARCHAR)[]) AS typing_notes,
         CAST(NULL AS JSON) AS extra_fields, CAST(NULL AS VARCHAR) AS raw
  FROM legacy_listing_events
  UNION ALL BY NAME
  ${typedEventsSql('raw_listing_events')}`;

const LISTING_EVENTS = `SELECT ${EVENT_COLUMNS} FROM listing_events_typed`;

/** A SQL expression of an event id's position in its log (null without trailing digits). */
const POSITION = "try_cast(nullif(event_id[length(rtrim(event_id, '0123456789')) + 1:], '') AS BIGINT)";

/**
 * The live set as the landed data says now: per listing, its sightings (`new` events and
 * observations) after its last departure (a `gone` event or a sweep's verdict), ordered by when
 * they happened (stream events of one instant by their log position; a sighting and a departure
 * of one instant: the departure wins). A listing with such a sighting is live, with the fields of
 * its latest one, first seen at the first, and its last `new` event of that stay.
 */
const LIVE_LISTINGS = `
  WITH events AS (
    -- Narrow: only the id is read from each event's data; the winners alone are typed below.
    SELECT event_id, kind, app_id, coalesce(listing_id, CASE WHEN json_type(id) = 'VARCHAR' THEN id ->> '$' END) AS listing_id,
           received_at, load_id, ingested_at
    FROM (SELECT *, try(json_extract(data, '$.id')) AS id FROM raw_listing_events WHERE kind IN ('new', 'gone'))
    UNION ALL
    SELECT event_id, kind, app_id, listing_id, received_at, load_id, ingested_at FROM legacy_listing_events
  ), happenings AS (
    SELECT listing_id, app_id, kind = 'gone' AS departure, received_at AS happened_at, ${POSITION} AS pos,
           CASE WHEN kind = 'new' THEN event_id END AS event_id, NULL AS via, NULL AS pass_id, load_id, ingested_at
    FROM events WHERE listing_id IS NOT NULL
    UNION ALL
    SELECT listing_id, app_id, false, observed_at, NULL, NULL, via, pass_id, load_id, ingested_at
    FROM listing_observations
    UNION ALL
    SELECT listing_id, app_id, true, detected_at, NULL, NULL, NULL, NULL, load_id, ingested_at FROM listing_gone
  ), departed AS (
    SELECT listing_id, happened_at AS left_at, pos AS left_pos FROM happenings WHERE departure
    QUALIFY row_number() OVER (PARTITION BY listing_id ORDER BY happened_at DESC, pos DESC NULLS FIRST) = 1
  ), stay AS (
    SELECT h.*,
           min(h.happened_at) OVER (PARTITION BY h.listing_id) AS first_seen_at,
           max(h.happened_at) OVER (PARTITION BY h.listing_id) AS last_seen_at,
           last_value(h.event_id IGNORE NULLS) OVER (
             PARTITION BY h.listing_id ORDER BY h.happened_at, h.pos NULLS FIRST
             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_event_id
    FROM happenings h LEFT JOIN departed d ON d.listing_id = h.listing_id
    WHERE NOT h.departure
      AND (d.left_at IS NULL OR h.happened_at > d.left_at OR (h.happened_at = d.left_at AND h.pos > d.left_pos))
  ), winners AS (
    SELECT * FROM stay
    QUALIFY row_number() OVER (PARTITION BY listing_id ORDER BY happened_at DESC, pos DESC NULLS LAST) = 1
  ), event_fields AS (
    -- The listing's fields of a winning event: typed here, for the winners only.
    SELECT event_id, ${listingColumnList()}
    FROM (${typedEventsSql('(SELECT * FROM raw_listing_events WHERE event_id IN (SELECT event_id FROM winners))')})
    UNION ALL
    SELECT event_id, ${listingColumnList()}
    FROM legacy_listing_events WHERE event_id IN (SELECT event_id FROM winners)
  ), live AS (
    SELECT w.*, ${listingColumnList('f')} FROM winners w JOIN event_fields f ON f.event_id = w.event_id
    UNION ALL
    SELECT w.*, ${listingColumnList('o')}
    FROM winners w JOIN listing_observations o
      ON w.listing_id = o.listing_id AND w.via = o.via AND w.pass_id = o.pass_id AND o.observed_at = w.happened_at
  )
  SELECT s.listing_id, s.app_id, ${listingColumnList('s')}, s.first_seen_at, s.last_seen_at, s.last_event_id,
         coalesce(l.source, 'stream') AS source, s.load_id, s.ingested_at
  FROM live s LEFT JOIN loads l ON l.load_id = s.load_id`;

/** Every payload that could not be typed at all, with why. */
const REJECTED_PAYLOADS = `
  SELECT 'stream' AS source, event_id, kind, data AS raw, reason, received_at, load_id, ingested_at
  FROM (SELECT *, ${rejectionReason()} AS reason FROM raw_listing_events)
  WHERE reason IS NOT NULL`;

/** The derived views, in creation order (each may read the ones before). */
export const DERIVED_VIEWS: readonly (readonly [string, string])[] = [
  ['listing_events_typed', LISTING_EVENTS_TYPED],
  ['listing_events', LISTING_EVENTS],
  ['live_listings', LIVE_LISTINGS],
  ['rejected_payloads', REJECTED_PAYLOADS],
];

/** The statements (re)creating the derived views. */
export function derivedViewStatements(): string[] {
  return DERIVED_VIEWS.map(([name, sql]) => `CREATE OR REPLACE VIEW ${name} AS ${sql}`);
}

/** (Re)creates the derived views, unless the file is of a layout before raw landing (opened with older migrations). */
export async function createDerivedViews(db: Database): Promise<void> {
  const [raw] = await db.all(
    "SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'raw_listing_events'",
  );
  if (raw === undefined) return;
  for (const sql of derivedViewStatements()) await db.run(sql);
}
