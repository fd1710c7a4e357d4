/** The P2P listing's lifecycle as data: one table of (status, event) → next status and the function that applies it. */
import type { P2PListingStatus } from '../../contract/p2p.js';
import { refuseOnly } from '../core/refuse.js';

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

/** Every allowed step; a (status, event) pair missing here is refused. */
export const LISTING_TRANSITIONS: Readonly<
  Record<P2PListingStatus, Readonly<Partial<Record<ListingEvent, P2PListingStatus>>>>
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

const refuseStep = refuseOnly(['listing_not_active']);

/** The status after `event`, or 409 listing_not_active naming why it cannot happen. */
export function nextListingStatus(status: P2PListingStatus, event: ListingEvent): P2PListingStatus {
  const next = LISTING_TRANSITIONS[status][event];
  if (next !== undefined) return next;
  const why =
    LIVE_STATUSES.includes(status) && status !== 'active' ? 'it is sold and mid-sale' : `it is ${status}`;
  throw refuseStep('listing_not_active', `a P2P listing that is ${status} cannot be ${event}: ${why}`, {
    status,
  });
}
