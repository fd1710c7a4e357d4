/** The P2P listing's lifecycle as data: one table of (state, event) → next state and the function that applies it. */
import { P2P_LISTING_STATUSES, type P2PListingStatus } from '../../contract/p2p.js';
import { refuseOnly } from '../core/refuse.js';

/**
 * The states a listing ends in. They live in the service's own table only: /v1 answers the
 * specification's five statuses, so an ended listing is no longer a listing of any answer (its
 * sale is the seller's `sale` ledger row; a failed sale is the buyer's refunded order).
 */
export const ENDED_STATES = ['sold', 'cancelled', 'delisted'] as const;

/** Every state of a listing in the service's table: the specification's five, then the ends. */
export const LISTING_STATES = [...P2P_LISTING_STATUSES, ...ENDED_STATES] as const;

/** A listing's state in the service's table. */
export type ListingState = (typeof LISTING_STATES)[number];

/** What can happen to a P2P listing. */
export type ListingEvent =
  | 'bought'
  | 'sent'
  | 'send_failed'
  | 'accepted'
  | 'declined'
  | 'expired'
  | 'rolled_back'
  | 'released'
  | 'repriced'
  | 'delisted'
  | 'missing';

/** Every allowed step; a (state, event) pair missing here is refused. */
export const LISTING_TRANSITIONS: Readonly<
  Record<ListingState, Readonly<Partial<Record<ListingEvent, ListingState>>>>
> = {
  active: {
    bought: 'trade_pending',
    repriced: 'active',
    delisted: 'delisted',
    missing: 'reconciliation_required',
  },
  trade_pending: { sent: 'trade_sent', send_failed: 'cancelled' },
  trade_sent: { accepted: 'verification_hold', declined: 'cancelled', expired: 'cancelled' },
  verification_hold: { released: 'sold', rolled_back: 'cancelled' },
  reconciliation_required: { delisted: 'delisted' },
  sold: {},
  cancelled: {},
  delisted: {},
};

/** Statuses in which a listing holds its copy: on the shelf or mid-sale. */
export const LIVE_STATUSES: readonly P2PListingStatus[] = [
  'active',
  'trade_pending',
  'trade_sent',
  'verification_hold',
];

/** True for a state /v1 answers: one of the specification's five, not an end. */
export function isAnswered(state: ListingState): state is P2PListingStatus {
  return (P2P_LISTING_STATUSES as readonly string[]).includes(state);
}

const refuseStep = refuseOnly(['listing_not_active']);

/**
 * The state after `event`, or 409 listing_not_active naming why it cannot happen. Callers refuse
 * an ended listing before (it is no longer a listing), so the refusal's status is one of the five.
 */
export function nextListingStatus(state: ListingState, event: ListingEvent): ListingState {
  const next = LISTING_TRANSITIONS[state][event];
  if (next !== undefined) return next;
  const why =
    LIVE_STATUSES.includes(state as P2PListingStatus) && state !== 'active'
      ? 'it is sold and mid-sale'
      : `it is ${state}`;
  throw refuseStep('listing_not_active', `a P2P listing that is ${state} cannot be ${event}: ${why}`, {
    status: state,
  });
}
