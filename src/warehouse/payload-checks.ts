/**
 * Counts what landed payloads carry, as they land: how many could not be typed at all or typed
 * with a note (`payload_checks`), and every top-level key with when it was first seen and how
 * often (`payload_fields`), so a new upstream field is noticed without reading the history again.
 * Each payload is parsed once, for its JSON structure; the batch's few distinct structures are
 * then judged, not its rows.
 */
import { typesCleanly } from './listing-shape.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** Adds the stream events of the temp table `table` (raw_listing_events' columns) to the source's counts. */
export async function countPayloads(context: LandingContext, table: string): Promise<void> {
  await run(
    context,
    `CREATE OR REPLACE TEMP TABLE _wh_shapes AS
     SELECT kind, shape, count(*) AS n, min(received_at) AS first_seen_at,
            kind NOT IN ('new', 'gone') OR shape IS NULL OR json_type(shape) <> 'OBJECT'
              OR json_extract_string(shape, '$.id') IS DISTINCT FROM 'VARCHAR' AS rejected
     FROM (SELECT kind, received_at, try(json_structure(data)) AS shape FROM ${table})
     GROUP BY ALL`,
  );
  await run(
    context,
    `INSERT INTO payload_checks (source, payloads, rejected, partly_typed, updated_at)
     SELECT $source, sum(n), coalesce(sum(n) FILTER (WHERE rejected), 0),
            coalesce(sum(n) FILTER (WHERE NOT rejected AND kind = 'new' AND NOT (${typesCleanly('shape')})), 0),
            ${msToTimestamp('$now')}
     FROM _wh_shapes
     ON CONFLICT (source) DO UPDATE SET payloads = payloads + excluded.payloads,
       rejected = rejected + excluded.rejected, partly_typed = partly_typed + excluded.partly_typed,
       updated_at = excluded.updated_at`,
    { source: context.source, now: context.now },
  );
  await run(
    context,
    `INSERT INTO payload_fields (source, field, first_seen_at, first_load_id, payloads)
     SELECT $source, field, min(first_seen_at), $load, sum(n)
     FROM (SELECT unnest(json_keys(shape)) AS field, first_seen_at, n FROM _wh_shapes WHERE json_type(shape) = 'OBJECT')
     GROUP BY field
     ON CONFLICT (source, field) DO UPDATE SET payloads = payloads + excluded.payloads`,
    { source: context.source, load: context.loadId },
  );
  await run(context, 'DROP TABLE _wh_shapes');
}
