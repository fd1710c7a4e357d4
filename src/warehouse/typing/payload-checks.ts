/**
 * Counts what landed payloads carry: how many could not be typed at all or typed with a note
 * (`payload_checks`), and every top-level key with when it was first seen and how often
 * (`payload_fields`), so a new upstream field is noticed without reading the history again. Each
 * payload is read for its top-level keys and the JSON types of the listing's fields (its whole
 * `json_structure` cost 4.0 µs of CPU a payload, these 2.5 µs); the few distinct shapes are then
 * judged, not the rows. It runs after landing, with the live set's refresh (see `live-set.ts`):
 * parsing every payload was a third of the landing transaction's time.
 */
import { LISTING_PATHS, typesCleanly } from './listing-shape.js';

/** JSON types of a payload `data`: the whole value's, its `id`'s, then the listing's fields' (null: not valid JSON). */
const TYPES = `try(json_type(data, ['$', '$.id', ${LISTING_PATHS.slice(1, -1)}]))`;

/** A payload's top-level keys (null: not an object); a key sent twice is counted once, per shape, not per row. */
const KEYS = `CASE WHEN types[1] = 'OBJECT' THEN json_keys(data) END`;

/**
 * The statements adding the payloads of `table` to their sources' counts: a relation with the
 * columns `source`, `kind` (`new`, `gone`; anything else is rejected), `received_at`, `load_id`,
 * `ingested_at` and `data` (the payload's text), e.g. a parenthesised query. Page items count as
 * `new` under their via.
 */
export function countPayloadsSql(table: string): string[] {
  return [
    `CREATE OR REPLACE TEMP TABLE _wh_shapes AS
     SELECT source, kind, types, keys, count(*) AS n, min(received_at) AS first_seen_at,
            arg_min(load_id, received_at) AS first_load_id, max(ingested_at) AS updated_at,
            kind NOT IN ('new', 'gone') OR coalesce(types[1] <> 'OBJECT' OR types[2] <> 'VARCHAR', true) AS rejected
     FROM (SELECT *, ${KEYS} AS keys
           FROM (SELECT source, kind, received_at, load_id, ingested_at, data, ${TYPES} AS types FROM ${table}))
     GROUP BY source, kind, types, keys`,
    `INSERT INTO payload_checks (source, payloads, rejected, partly_typed, updated_at)
     SELECT source, sum(n), coalesce(sum(n) FILTER (WHERE rejected), 0),
            coalesce(sum(n) FILTER (WHERE NOT rejected AND kind = 'new' AND NOT (${typesCleanly('types', 3)})), 0),
            max(updated_at)
     FROM _wh_shapes GROUP BY source
     ON CONFLICT (source) DO UPDATE SET payloads = payloads + excluded.payloads,
       rejected = rejected + excluded.rejected, partly_typed = partly_typed + excluded.partly_typed,
       updated_at = excluded.updated_at`,
    `INSERT INTO payload_fields (source, field, first_seen_at, first_load_id, payloads)
     SELECT source, field, min(first_seen_at), arg_min(first_load_id, first_seen_at), sum(n)
     FROM (SELECT source, unnest(list_distinct(keys)) AS field, first_seen_at, first_load_id, n FROM _wh_shapes WHERE keys IS NOT NULL)
     GROUP BY source, field
     ON CONFLICT (source, field) DO UPDATE SET payloads = payloads + excluded.payloads`,
    'DROP TABLE _wh_shapes',
  ];
}
