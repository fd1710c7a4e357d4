/** The order item's state table, row by row: every (state, event) pair either steps or is refused. */
import { describe, expect, it } from 'vitest';
import type { OrderItemStatus } from '../../../src/contract/order.js';
import {
  ITEM_TRANSITIONS,
  type ItemEvent,
  nextItemStatus,
} from '../../../src/service/trading/item-states.js';

const STATES: OrderItemStatus[] = ['delivering', 'hold', 'delivered', 'returned'];
const EVENTS: ItemEvent[] = [
  'offer_accepted',
  'offer_declined',
  'offer_expired',
  'rolled_back',
  'claimed',
  'seller_gave_up',
  'claim_window_over',
];

/** The steps an item may take; every other pair of state and event is refused. */
const STEPS: Record<string, OrderItemStatus> = {
  'delivering:offer_accepted': 'delivered',
  'delivering:offer_declined': 'returned',
  'delivering:offer_expired': 'returned',
  'delivering:seller_gave_up': 'returned',
  'delivered:rolled_back': 'returned',
  'hold:claimed': 'delivering',
  'hold:claim_window_over': 'returned',
};

const ROWS = STATES.flatMap((state) =>
  EVENTS.map((event): [OrderItemStatus, ItemEvent, OrderItemStatus | 'refused'] => [
    state,
    event,
    STEPS[`${state}:${event}`] ?? 'refused',
  ]),
);

describe('nextItemStatus', () => {
  it.each(ROWS)('%s + %s → %s', (state, event, expected) => {
    if (expected === 'refused')
      expect(() => nextItemStatus(state, event)).toThrow(`an item in ${state} cannot take ${event}`);
    else expect(nextItemStatus(state, event)).toBe(expected);
  });

  it('has exactly the steps the rows above allow', () => {
    expect(ITEM_TRANSITIONS).toEqual(STEPS);
  });

  it('lets nothing leave returned, the final state', () => {
    expect(ROWS.filter(([state, , next]) => state === 'returned' && next !== 'refused')).toEqual([]);
  });
});
