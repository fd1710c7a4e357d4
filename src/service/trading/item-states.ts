/**
 * The order item's state machine as data: (state, event) → next state, and the one function that
 * applies it. Everything else is refused, so no code path can move an item in a way not listed here.
 */
import type { OrderItemStatus } from '../../contract/order.js';

/** What can happen to an item. */
export type ItemEvent =
  | 'offer_accepted'
  | 'offer_declined'
  | 'offer_expired'
  | 'rolled_back'
  | 'claimed'
  | 'seller_gave_up'
  | 'claim_window_over';

/** The transitions an item may take. */
export const ITEM_TRANSITIONS: Readonly<Record<string, OrderItemStatus>> = {
  'delivering:offer_accepted': 'delivered',
  'delivering:offer_declined': 'returned',
  'delivering:offer_expired': 'returned',
  'delivering:seller_gave_up': 'returned',
  'delivered:rolled_back': 'returned',
  'hold:claimed': 'delivering',
  'hold:claim_window_over': 'returned',
};

/** The next state of an item, or an error naming the refused transition. */
export function nextItemStatus(status: OrderItemStatus, event: ItemEvent): OrderItemStatus {
  const next = ITEM_TRANSITIONS[`${status}:${event}`];
  if (next === undefined) throw new Error(`an item in ${status} cannot take ${event}`);
  return next;
}
