/** Lands what polls, sweeps and catch-ups saw live: observations, deduplicated per pass. */
import type { Listing } from '../contract/listing.js';
import { defineLander } from './lander.js';
import { LISTING_TYPE, listingColumnList } from './listing-shape.js';
import { firstOfEachKey, type LandingContext, msToTimestamp, run, selectListingColumns } from './sql.js';
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
 * observation is skipped entirely. The live set is a view over what landed (see `views.ts`):
 * an observation no newer than the listing's last departure does not revive it; collectors stamp
 * `observedAt` when the request starts, so a page can never postdate that stamp.
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
  await run(context, 'DROP TABLE _wh_observations');
}
