/**
 * Counts what landed payloads carry, as they land: how many could not be typed at all or typed
 * with a note (`payload_checks`), and every top-level key with when it was first seen and how
 * often (`payload_fields`), so a new upstream field is noticed without reading the history again.
 */
import { type LandingContext, msToTimestamp, run } from './sql.js';
import { rejectionReason, typedEventsSql } from './typed-events.js';

/** Adds the stream events of the temp table `table` (raw_listing_events' columns) to the source's counts. */
export async function countPayloads(context: LandingContext, table: string): Promise<void> {
  await run(
    context,
    `INSERT INTO payload_checks (source, payloads, rejected, partly_typed, updated_at)
     SELECT $source, (SELECT count(*) FROM ${table}),
            (SELECT count(*) FROM ${table} WHERE (${rejectionReason()}) IS NOT NULL),
            (SELECT count(*) FROM (${typedEventsSql(table)}) WHERE len(typing_notes) > 0),
            ${msToTimestamp('$now')}
     ON CONFLICT (source) DO UPDATE SET payloads = payloads + excluded.payloads,
       rejected = rejected + excluded.rejected, partly_typed = partly_typed + excluded.partly_typed,
       updated_at = excluded.updated_at`,
    { source: context.source, now: context.now },
  );
  await run(
    context,
    `INSERT INTO payload_fields (source, field, first_seen_at, first_load_id, payloads)
     SELECT $source, field, min(received_at), $load, count(*)
     FROM (
       SELECT unnest(json_keys(j)) AS field, received_at
       FROM (SELECT CASE WHEN json_valid(data) THEN data END AS j, received_at FROM ${table})
       WHERE json_type(j) = 'OBJECT'
     )
     GROUP BY field
     ON CONFLICT (source, field) DO UPDATE SET payloads = payloads + excluded.payloads`,
    { source: context.source, load: context.loadId },
  );
}
