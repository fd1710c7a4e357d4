/** Lands what polls, sweeps and catch-ups saw live: observations, deduplicated per pass. */
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
} from './sql.js';
import { stageFreshRows } from './staging.js';

const OBSERVATION_COLUMNS = {
  o: 'BIGINT',
  a: 'INTEGER',
  t: 'DOUBLE',
  v: 'VARCHAR',
  p: 'VARCHAR',
  x: LISTING_TYPE,
};

/** A listing a poll, sweep or catch-up saw live. */
export interface ObservationRow {
  appId: number;
  listing: Listing;
  observedAt: number;
  via: 'poll' | 'sweep' | 'catch_up';
  /** The sweep id or poll window; (via, passId, listing id) is landed once. */
  passId: string;
}

/** The batch's `observations`, applied after its events. */
export const observationsLander = defineLander({
  field: 'observations',
  merge: 'ordered',
  rows: (observations: ObservationRow[]) => observations.length,
  land: landObservations,
});

/**
 * Lands `observations` in `listing_observations`, once per (via, passId, listing id): a replayed
 * observation is skipped entirely. Each fresh one upserts `live_listings`: inserted with
 * `first_seen_at` = `last_seen_at` = observed time when absent; otherwise its fields and
 * `last_seen_at` are updated, unless the row already reflects a later sighting (an observation
 * older than `last_seen_at` does not roll a listing back, and one no newer than the listing's last
 * landed departure — a `gone` event or a sweep's verdict — does not revive it; collectors stamp
 * `observedAt` when the request starts, so a page can never postdate that stamp). `last_event_id`
 * is left as it was.
 */
async function landObservations(
  context: LandingContext,
  observations: readonly ObservationRow[],
): Promise<void> {
  if (observations.length === 0) return;
  const unique = firstOfEachKey(observations, (o) => `${o.via}\u0000${o.passId}\u0000${o.listing.id}`);
  const rows = unique.map((o, i) => ({
    o: i,
    a: o.appId,
    t: o.observedAt,
    v: o.via,
    p: o.passId,
    x: o.listing,
  }));
  await stageFreshRows(
    context,
    '_wh_observations',
    rows,
    OBSERVATION_COLUMNS,
    `o AS ord, a AS app_id, x.id AS listing_id, ${selectListingColumns('x')},
     ${msToTimestamp('t')} AS observed_at, v AS via, p AS pass_id`,
    `SELECT 1 FROM listing_observations o
     WHERE o.via = s.via AND o.pass_id = s.pass_id AND o.listing_id = s.listing_id`,
  );
  const landed = await run(
    context,
    `INSERT INTO listing_observations (app_id, listing_id, ${listingColumnList()}, observed_at, via, pass_id,
                                       load_id, ingested_at)
     SELECT app_id, listing_id, ${listingColumnList()}, observed_at, via, pass_id, $load, ${msToTimestamp('$now')}
     FROM _wh_observations`,
    { load: context.loadId, now: context.now },
  );
  context.count('listing_observations', landed);
  if (landed > 0) {
    // Each listing's latest fresh sighting, merged with its live row (first seen and last event kept),
    // replaces that row by a delete and a plain insert: live_listings carries no index.
    await run(
      context,
      `CREATE OR REPLACE TEMP TABLE _wh_observed_live AS
       SELECT s.listing_id, s.app_id, ${listingColumnList('s')}, coalesce(l.first_seen_at, s.observed_at) AS first_seen_at,
              s.observed_at AS last_seen_at, l.last_event_id, $source AS source, $load AS load_id,
              ${msToTimestamp('$now')} AS ingested_at
       FROM (
         SELECT * FROM _wh_observations s
         -- A page read before a listing left must not bring it back once its departure has landed.
         WHERE NOT EXISTS (
           SELECT 1 FROM listing_events e
           WHERE e.listing_id = s.listing_id AND e.kind = 'gone' AND e.received_at >= s.observed_at
         )
         AND NOT EXISTS (
           SELECT 1 FROM listing_gone g WHERE g.listing_id = s.listing_id AND g.detected_at >= s.observed_at
         )
         QUALIFY row_number() OVER (PARTITION BY listing_id ORDER BY observed_at DESC, ord DESC) = 1
       ) s
       LEFT JOIN live_listings l ON l.listing_id = s.listing_id
       WHERE l.listing_id IS NULL OR s.observed_at >= l.last_seen_at`,
      { source: context.source, load: context.loadId, now: context.now },
    );
    await run(
      context,
      'DELETE FROM live_listings WHERE listing_id IN (SELECT listing_id FROM _wh_observed_live)',
    );
    const upserted = await run(
      context,
      `INSERT INTO live_listings (listing_id, app_id, ${listingColumnList()}, first_seen_at, last_seen_at,
                                  last_event_id, source, load_id, ingested_at)
       SELECT * FROM _wh_observed_live`,
    );
    await run(context, 'DROP TABLE _wh_observed_live');
    context.count('live_listings', upserted);
  }
  await run(context, 'DROP TABLE _wh_observations');
}
