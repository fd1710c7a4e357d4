/** The trade offer lifecycle as data: one table of (state, event) → next state and the function that applies it. */
import { refuse } from '../core/refuse.js';

/** Where a trade offer is in its life. */
export type OfferState = 'active' | 'accepted' | 'declined' | 'expired' | 'rolled_back';

/** How an offer left `active` (or, for `rolled_back`, how an accepted one was reversed). */
export type OfferOutcome = Exclude<OfferState, 'active'>;

/** What can happen to an offer: the recipient answers, the offer times out, or an accepted trade is reversed. */
export type OfferEvent = 'accept' | 'decline' | 'expire' | 'rollback';

/** Every allowed step; a (state, event) pair missing here is refused. */
export const OFFER_TRANSITIONS: Readonly<
  Record<OfferState, Readonly<Partial<Record<OfferEvent, OfferOutcome>>>>
> = {
  active: { accept: 'accepted', decline: 'declined', expire: 'expired' },
  accepted: { rollback: 'rolled_back' },
  declined: {},
  expired: {},
  rolled_back: {},
};

/** The state after `event`, or 400 invalid_request when the table has no such step. */
export function nextOfferState(state: OfferState, event: OfferEvent): OfferOutcome {
  const next = OFFER_TRANSITIONS[state][event];
  if (next !== undefined) return next;
  const hint = state === 'active' ? 'only an accepted offer can be rolled back' : `the offer is ${state}`;
  throw refuse('invalid_request', `cannot ${event} a trade offer that is ${state}: ${hint}`);
}
