/** Lands what sweeps and catch-ups no longer found: listings gone, once per verdict. */
import { defineLander } from './lander.js';
import { firstOfEachKey, type LandingContext, msToTimestamp, run } from './sql.js';
import { stageFreshRows } from './staging.js';

/** A listing a sweep or catch-up no longer found. */
export interface GoneRow {
  appId: number;
  listingId: string;
  detectedAt: number;
  via: 'sweep' | 'catch_up';
}

const GONE_COLUMNS = { o: 'BIGINT', a: 'INTEGER', l: 'VARCHAR', t: 'DOUBLE', v: 'VARCHAR' };

/** The batch's `gone` rows, applied after its observations. */
export const goneLander = defineLander({
  field: 'gone',
  merge: 'ordered',
  rows: (gone: GoneRow[]) => gone.length,
  land: landGone,
});

/**
 * Lands `gone` rows in `listing_gone`, once per (via, listing id, detected time). The live set
 * (a view, see `views.ts`) drops a listing for a verdict unless it was seen live after it.
 */
async function landGone(context: LandingContext, gone: readonly GoneRow[]): Promise<void> {
  if (gone.length === 0) return;
  const unique = firstOfEachKey(gone, (g) => `${g.via}\u0000${g.listingId}\u0000${g.detectedAt}`);
  const rows = unique.map((g, i) => ({ o: i, a: g.appId, l: g.listingId, t: g.detectedAt, v: g.via }));
  await stageFreshRows(
    context,
    '_wh_gone',
    rows,
    GONE_COLUMNS,
    `o AS ord, a AS app_id, l AS listing_id, ${msToTimestamp('t')} AS detected_at, v AS via`,
    `SELECT 1 FROM listing_gone g
     WHERE g.via = s.via AND g.listing_id = s.listing_id AND g.detected_at = s.detected_at`,
  );
  const landed = await run(
    context,
    `INSERT INTO listing_gone (app_id, listing_id, detected_at, via, load_id, ingested_at)
     SELECT app_id, listing_id, detected_at, via, $load, ${msToTimestamp('$now')} FROM _wh_gone`,
    { load: context.loadId, now: context.now },
  );
  context.count('listing_gone', landed);
  await run(context, 'DROP TABLE _wh_gone');
}
