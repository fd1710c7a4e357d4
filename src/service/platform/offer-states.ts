/** The trade offer lifecycle as data: one table of (state, event) → next state and the function that applies it. */
import { offerStateRefusal } from './platform-errors.js';

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

/** The state after `event`, or an `offer_state` refusal when the table has no such step. */
export function nextOfferState(state: OfferState, event: OfferEvent): OfferOutcome {
  const next = OFFER_TRANSITIONS[state][event];
  if (next === undefined) throw offerStateRefusal(state, event);
  return next;
}
