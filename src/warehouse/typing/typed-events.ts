/**
 * Why a landed listing payload (a stream event or a page item) cannot be typed at all, in SQL. The
 * typing itself is in `sql/warehouse/views/listing_events_typed.sql` and
 * `listing_observations_typed.sql`, with the listing's pieces from `listing-shape.ts`.
 */

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
