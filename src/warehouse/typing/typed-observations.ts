/**
 * The typing of landed page items (what polls, sweeps and catch-ups saw), in SQL: the views
 * `listing_observations_typed` and `listing_observations`, and the items `rejected_payloads` shows.
 * An item typed here is one the collector found an id in; the others cannot be typed at all.
 */
import { listingColumnList } from './listing-shape.js';
import { rejectionReason, typedListingsSql } from './typed-events.js';

/** Columns of listing_observations, in the former table's order. */
const OBSERVATION_COLUMNS = `app_id, listing_id, ${listingColumnList()}, observed_at, via, pass_id, load_id, ingested_at`;

/** What a page item carries besides the listing, as the raw table holds it. */
const ENVELOPE = ['app_id', 'observed_at', 'via', 'pass_id', 'page', 'item', 'load_id', 'ingested_at'];

/**
 * The SELECT typing the raw page items of `from` (a relation with raw_listing_observations'
 * columns) that carry an id, with the envelope, the listing's columns, `typing_notes`,
 * `extra_fields` and `raw`.
 */
export function typedObservationsSql(from: string): string {
  return typedListingsSql(from, ENVELOPE, 'r.listing_id IS NOT NULL');
}

/**
 * Every landed observation typed: the raw items typed leniently (a missing key or a value that
 * does not cast is null, noted in `typing_notes`; keys no column types in `extra_fields`), with
 * where each stood (`page`, `item`; null for an item landed by the typed layout, see migration 013).
 */
export const LISTING_OBSERVATIONS_TYPED = typedObservationsSql('raw_listing_observations');

/** The columns and meaning of the former landing table. */
export const LISTING_OBSERVATIONS = `SELECT ${OBSERVATION_COLUMNS} FROM listing_observations_typed`;

/**
 * The page items that could not be typed at all, in `rejected_payloads`' columns: the source is
 * the via, `event_id` the item's position (`<pass_id>:<page>:<item>`), `kind` null.
 */
export const REJECTED_OBSERVATIONS = `
  SELECT via AS source, pass_id || ':' || page || ':' || item AS event_id, CAST(NULL AS VARCHAR) AS kind,
         data AS raw, coalesce(${rejectionReason('data', 'listing_id', null)}, 'no listing id') AS reason,
         observed_at AS received_at, load_id, ingested_at
  FROM raw_listing_observations WHERE listing_id IS NULL`;
