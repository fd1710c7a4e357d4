/**
 * The views analysts and models read over what landed, created afresh at every read-write open
 * (so a new field of the contract reaches them): the typed views of `sql/warehouse/views/`
 * (rendered by `view-files.ts`; each landing table they name is read whole by that name, see
 * `lake/lake-views.ts`), then the live set's `live_set_changes` and `live_listings` (see
 * `live-set.ts`).
 */
import type { Database } from '../../shared/database.js';
import { LIVE_SET_VIEWS } from '../live-set/live-set.js';
import { readViewFiles } from './view-files.js';

/** The derived views, in creation order (each may read the ones before); the typed ones read each landing table whole by its name. */
function derivedViews(): (readonly [string, string])[] {
  return [...readViewFiles(), ...LIVE_SET_VIEWS];
}

/** The statements (re)creating the derived views (those of the live set only when `liveSet`). */
export function derivedViewStatements(liveSet = true): string[] {
  const live = new Set(LIVE_SET_VIEWS.map(([name]) => name));
  return derivedViews()
    .filter(([name]) => liveSet || !live.has(name))
    .map(([name, sql]) => `CREATE OR REPLACE VIEW ${name} AS ${sql}`);
}

/**
 * (Re)creates the derived views, unless the file is of a layout before raw landing (opened with
 * older migrations); those of the live set once its state table exists. Returns whether it does.
 */
export async function createDerivedViews(db: Database): Promise<boolean> {
  const tables = await db.all<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'main' AND table_name IN ('raw_listing_events', 'live_set_state')`,
  );
  const names = new Set(tables.map((t) => t.name));
  if (!names.has('raw_listing_events')) return false;
  const liveSet = names.has('live_set_state');
  for (const sql of derivedViewStatements(liveSet)) await db.run(sql);
  return liveSet;
}
