/**
 * The listing stream's Server-Sent Events frames, written once: `sseFrame` builds a frame in
 * TypeScript (live events, resync notices) and `sseFrameSql` builds the same text as a DuckDB
 * expression (replay, where DuckDB makes thousands of frames per step), both from one list of
 * fields, so live and replayed frames cannot drift apart.
 */
/** The fields of a frame, in the order they are written. */
const FIELDS = ['id', 'event', 'data'] as const;

/** The fields of one frame: every event has an id and a name (a resync notice too), as the specification says. */
export interface SseFrameParts {
  id: string;
  event: string;
  data: string;
}

/** The frame of `parts`: one `field: value` line per field, then a blank line. */
export function sseFrame(parts: SseFrameParts): string {
  let frame = '';
  for (const field of FIELDS) frame += `${field}: ${parts[field]}\n`;
  return `${frame}\n`;
}

/** The same frame as a DuckDB VARCHAR expression; each part is an SQL expression. */
export function sseFrameSql(parts: SseFrameParts): string {
  return [...FIELDS.map((field) => `'${field}: ' || ${parts[field]} || chr(10)`), 'chr(10)'].join(' || ');
}

/** The data of a logged event: the listing of a `new` event, `{"id":…}` for a `gone` one. */
export function eventData(event: { listing: string | null; listingId: string }): string {
  return event.listing ?? JSON.stringify({ id: event.listingId });
}

/** {@link eventData} as a DuckDB expression over a `listing_events` row. */
export const EVENT_DATA_SQL = `coalesce(listing, '{"id":' || to_json(listing_id) || '}')`;
