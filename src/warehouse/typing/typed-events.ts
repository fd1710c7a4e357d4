/**
 * The typing of landed stream events, in SQL: a raw event (its data as the stream sent it) becomes
 * today's typed row leniently, with a note per field that is missing or does not cast, and a JSON
 * object of the keys no column types; an event whose data is not a JSON object with an id is
 * rejected instead, with the reason.
 */
import { extraFields, LISTING_FIELDS, listingValues, typedListingColumns } from './listing-shape.js';

/**
 * A SQL expression of why a raw payload is rejected, or null when it is not: its kind is neither
 * `new` nor `gone` (without a `kind`, as for page items, every payload is a listing), or its
 * `data` is not UTF-8 JSON, not an object, or names no listing (`listing_id` given by the
 * collector or `id`).
 */
export function rejectionReason(
  data = 'data',
  listingId = 'listing_id',
  kind: string | null = 'kind',
): string {
  return `CASE ${kind === null ? '' : `WHEN ${kind} NOT IN ('new', 'gone') THEN 'unknown event kind'`}
    WHEN ${data} IS NULL THEN 'no data, or not UTF-8'
    WHEN NOT json_valid(${data}) THEN 'not valid JSON'
    WHEN json_type(${data}) <> 'OBJECT' THEN 'not a JSON object'
    WHEN coalesce(${listingId}, CASE WHEN json_type(${data}, '$.id') = 'VARCHAR' THEN ${data} ->> '$.id' END) IS NULL
      THEN 'no listing id' END`;
}

/**
 * The SELECT typing the listings of `from` (a relation with `listing_id`, `data` and the columns
 * `envelope`), the rows `where` keeps (a condition on `r`): the envelope, `listing_id` (read from
 * `data` when null), the listing's columns, `typing_notes`, `extra_fields` and `raw` (the data).
 */
export function typedListingsSql(from: string, envelope: readonly string[], where: string): string {
  return `
    SELECT ${envelope.join(', ')}, listing_id, ${typedListingColumns('j', 'keys')},
           ${extraFields('data', 'keys')} AS extra_fields, data AS raw
    FROM (
      SELECT ${envelope.map((c) => `r.${c}`).join(', ')}, coalesce(r.listing_id, r.data ->> '$.id') AS listing_id,
             r.data, ${listingValues('r.data')} AS j, json_keys(r.data) AS keys
      FROM ${from} r
      WHERE ${where}
    )`;
}

/**
 * The SELECT typing the raw events of `from` (a relation with raw_listing_events' columns): one
 * row per event that is not rejected, with listing_events' columns, then `typing_notes` (a list of
 * {field, reason}; empty when the event typed cleanly), `extra_fields` (JSON, or null) and `raw`.
 * A `gone` event types only its id.
 */
export function typedEventsSql(from: string): string {
  const nulls = LISTING_FIELDS.map((f) => `CAST(NULL AS ${f.sqlType}) AS ${f.name}`).join(', ');
  const notes = 'CAST([] AS STRUCT(field VARCHAR, reason VARCHAR)[])';
  const envelope = ['event_id', 'kind', 'app_id', 'received_at', 'load_id', 'ingested_at'];
  return `
    ${typedListingsSql(from, envelope, `r.kind = 'new' AND (${rejectionReason('r.data', 'r.listing_id', 'r.kind')}) IS NULL`)}
    UNION ALL BY NAME
    SELECT r.event_id, r.kind, coalesce(r.listing_id, r.data ->> '$.id') AS listing_id, r.app_id, ${nulls},
           ${notes} AS typing_notes, r.received_at, r.load_id, r.ingested_at,
           ${extraFields('r.data', 'json_keys(r.data)')} AS extra_fields, r.data AS raw
    FROM ${from} r
    WHERE r.kind = 'gone' AND (${rejectionReason('r.data', 'r.listing_id', 'r.kind')}) IS NULL`;
}
