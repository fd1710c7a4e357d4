/**
 * The sell order and bot offer lifecycles as data: one table of (state, event) → next state each,
 * and the functions that apply them and refuse anything else.
 */
import type { SellOfferStatus, SellOrderStatus } from '../../contract/sell.js';

/** What moves a sell order: its offers going out (or not), their answers, the rollbacks, the clock. */
export type SellEvent =
  | 'offers_sent'
  | 'not_sent'
  | 'received'
  | 'none_received'
  | 'protection_over'
  | 'all_reversed';

/** Every allowed step of a sell order; a (state, event) pair missing here is refused. */
export const SELL_TRANSITIONS: Readonly<
  Record<SellOrderStatus, Readonly<Partial<Record<SellEvent, SellOrderStatus>>>>
> = {
  pending: { offers_sent: 'offer_sent', not_sent: 'failed' },
  offer_sent: { received: 'received', none_received: 'failed' },
  received: { protection_over: 'completed', all_reversed: 'failed' },
  completed: {},
  failed: {},
};

/** What happens to a bot's offer on the platform. */
export type SellOfferEvent = 'accepted' | 'declined' | 'expired' | 'rolled_back';

/** Every allowed step of a bot offer. */
export const SELL_OFFER_TRANSITIONS: Readonly<
  Record<SellOfferStatus, Readonly<Partial<Record<SellOfferEvent, SellOfferStatus>>>>
> = {
  sent: { accepted: 'accepted', declined: 'declined', expired: 'expired' },
  accepted: { rolled_back: 'rolled_back' },
  declined: {},
  expired: {},
  rolled_back: {},
};

/** The status of a sell order after `event`; throws when the table has no such step. */
export function nextSellStatus(status: SellOrderStatus, event: SellEvent): SellOrderStatus {
  const next = SELL_TRANSITIONS[status][event];
  if (next === undefined) throw new Error(`a sell order that is ${status} cannot take '${event}'`);
  return next;
}

/** The status of a bot offer after `event`; throws when the table has no such step. */
export function nextSellOfferStatus(status: SellOfferStatus, event: SellOfferEvent): SellOfferStatus {
  const next = SELL_OFFER_TRANSITIONS[status][event];
  if (next === undefined) throw new Error(`a bot offer that is ${status} cannot be ${event}`);
  return next;
}
