/** The offer state table, row by row: every (state, event) pair either steps or is refused. */
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/contract/api-error.js';
import {
  nextOfferState,
  OFFER_TRANSITIONS,
  type OfferEvent,
  type OfferState,
} from '../../../src/service/platform/offer-states.js';

const ROWS: [OfferState, OfferEvent, OfferState | 'refused'][] = [
  ['active', 'accept', 'accepted'],
  ['active', 'decline', 'declined'],
  ['active', 'expire', 'expired'],
  ['active', 'rollback', 'refused'],
  ['accepted', 'accept', 'refused'],
  ['accepted', 'decline', 'refused'],
  ['accepted', 'expire', 'refused'],
  ['accepted', 'rollback', 'rolled_back'],
  ['declined', 'accept', 'refused'],
  ['declined', 'decline', 'refused'],
  ['declined', 'expire', 'refused'],
  ['declined', 'rollback', 'refused'],
  ['expired', 'accept', 'refused'],
  ['expired', 'decline', 'refused'],
  ['expired', 'expire', 'refused'],
  ['expired', 'rollback', 'refused'],
  ['rolled_back', 'accept', 'refused'],
  ['rolled_back', 'decline', 'refused'],
  ['rolled_back', 'expire', 'refused'],
  ['rolled_back', 'rollback', 'refused'],
];

describe('nextOfferState', () => {
  it.each(ROWS)('%s + %s → %s', (state, event, expected) => {
    if (expected !== 'refused') {
      expect(nextOfferState(state, event)).toBe(expected);
      return;
    }
    let refusal: unknown;
    try {
      nextOfferState(state, event);
    } catch (error) {
      refusal = error;
    }
    expect(isApiError(refusal) && refusal.message).toMatch(
      `invalid_request: cannot ${event} a trade offer that is ${state}`,
    );
  });

  it('has exactly the steps the rows above allow', () => {
    const allowed = ROWS.filter(([, , next]) => next !== 'refused').length;
    const inTable = Object.values(OFFER_TRANSITIONS).reduce((n, steps) => n + Object.keys(steps).length, 0);
    expect(inTable).toBe(allowed);
  });
});
