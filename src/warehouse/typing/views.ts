/**
 * The views analysts and models read over what landed, derived from the listing's shape and
 * created afresh at every read-write open (so a new field of the contract reaches them):
 * `listing_events_typed`, `listing_events`, `listing_observations_typed`, `listing_observations`,
 * `rejected_payloads`, the live set's
 * `live_set_changes` and `live_listings` (see `live-set.ts`), and the prices' and the account's
 * (`price_snapshots`, `minask_prices`, `fx_rates`, `account_transactions`, `account_states`, each
 * beside its `*_typed` view with typing notes).
 */
import type { Database } from '../../shared/database.js';
import { LIVE_SET_VIEWS } from '../live-set/live-set.js';
import { listingColumnList } from './listing-shape.js';
import {
  ACCOUNT_STATES,
  ACCOUNT_STATES_TYPED,
  ACCOUNT_TRANSACTIONS,
  ACCOUNT_TRANSACTIONS_TYPED,
  REJECTED_ACCOUNT,
} from './typed-account.js';
import { rejectionReason, typedEventsSql } from './typed-events.js';
import {
  LISTING_OBSERVATIONS,
  LISTING_OBSERVATIONS_TYPED,
  REJECTED_OBSERVATIONS,
} from './typed-observations.js';
import {
  FX_RATES,
  FX_RATES_TYPED,
  MINASK_PRICES,
  MINASK_PRICES_TYPED,
  PRICE_SNAPSHOTS,
  PRICE_SNAPSHOTS_TYPED,
  REJECTED_PRICES,
} from './typed-prices.js';

/** Columns of listing_events, in table order. */
const EVENT_COLUMNS = `event_id, kind, listing_id, app_id, ${listingColumnList()}, received_at, load_id, ingested_at`;

/** Every landed stream event typed leniently. */
const LISTING_EVENTS_TYPED = typedEventsSql('raw_listing_events');

const LISTING_EVENTS = `SELECT ${EVENT_COLUMNS} FROM listing_events_typed`;

/** Every payload that could not be typed at all, with why: stream events, page items, prices, the account. */
const REJECTED_PAYLOADS = `
  SELECT 'stream' AS source, event_id, kind, data AS raw, reason, received_at, load_id, ingested_at
  FROM (SELECT *, ${rejectionReason()} AS reason FROM raw_listing_events)
  WHERE reason IS NOT NULL
  UNION ALL BY NAME ${REJECTED_OBSERVATIONS}
  UNION ALL BY NAME ${REJECTED_PRICES}
  UNION ALL BY NAME ${REJECTED_ACCOUNT}`;

/** The derived views, in creation order (each may read the ones before). */
export const DERIVED_VIEWS: readonly (readonly [string, string])[] = [
  ['listing_events_typed', LISTING_EVENTS_TYPED],
  ['listing_events', LISTING_EVENTS],
  ['listing_observations_typed', LISTING_OBSERVATIONS_TYPED],
  ['listing_observations', LISTING_OBSERVATIONS],
  ['price_snapshots_typed', PRICE_SNAPSHOTS_TYPED],
  ['price_snapshots', PRICE_SNAPSHOTS],
  ['minask_prices_typed', MINASK_PRICES_TYPED],
  ['minask_prices', MINASK_PRICES],
  ['fx_rates_typed', FX_RATES_TYPED],
  ['fx_rates', FX_RATES],
  ['account_transactions_typed', ACCOUNT_TRANSACTIONS_TYPED],
  ['account_transactions', ACCOUNT_TRANSACTIONS],
  ['account_states_typed', ACCOUNT_STATES_TYPED],
  ['account_states', ACCOUNT_STATES],
  ['rejected_payloads', REJECTED_PAYLOADS],
  ...LIVE_SET_VIEWS,
];

/** The statements (re)creating the derived views (those of the live set only when `liveSet`). */
export function derivedViewStatements(liveSet = true): string[] {
  const live = new Set(LIVE_SET_VIEWS.map(([name]) => name));
  return DERIVED_VIEWS.filter(([name]) => liveSet || !live.has(name)).map(
    ([name, sql]) => `CREATE OR REPLACE VIEW ${name} AS ${sql}`,
  );
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
