/** The P2P listing's state table, row by row, and the refusals of every step it does not list. */
import { describe, expect, it } from 'vitest';
import { P2P_LISTING_STATUSES } from '../../../src/contract/p2p.js';
import {
  ENDED_STATES,
  isAnswered,
  LISTING_STATES,
  LISTING_TRANSITIONS,
  type ListingEvent,
  nextListingStatus,
} from '../../../src/service/p2p/listing-states.js';

const EVENTS: ListingEvent[] = [
  'bought',
  'sent',
  'send_failed',
  'accepted',
  'declined',
  'expired',
  'rolled_back',
  'released',
  'repriced',
  'delisted',
  'missing',
];

describe('nextListingStatus', () => {
  it.each([
    ['active', 'bought', 'trade_pending'],
    ['active', 'repriced', 'active'],
    ['active', 'delisted', 'delisted'],
    ['active', 'missing', 'reconciliation_required'],
    ['trade_pending', 'sent', 'trade_sent'],
    ['trade_pending', 'send_failed', 'cancelled'],
    ['trade_sent', 'accepted', 'verification_hold'],
    ['trade_sent', 'declined', 'cancelled'],
    ['trade_sent', 'expired', 'cancelled'],
    ['verification_hold', 'released', 'sold'],
    ['verification_hold', 'rolled_back', 'cancelled'],
    ['reconciliation_required', 'delisted', 'delisted'],
  ] as const)('moves %s on %s to %s', (status, event, next) => {
    expect(nextListingStatus(status, event)).toBe(next);
  });

  const refused = LISTING_STATES.flatMap((status) =>
    EVENTS.filter((event) => LISTING_TRANSITIONS[status][event] === undefined).map((event) => [
      status,
      event,
    ]),
  );

  it.each(refused)('refuses %s on %s with listing_not_active', (status, event) => {
    expect(() => nextListingStatus(status as never, event as ListingEvent)).toThrow(
      expect.objectContaining({
        code: 'listing_not_active',
        status: 409,
        detail: expect.stringContaining(`a P2P listing that is ${status} cannot be ${event}: `),
        extra: { status },
      }),
    );
  });

  it('never revives a listing that left the shelf: no step leads back to active but a reprice', () => {
    for (const status of LISTING_STATES)
      for (const next of Object.values(LISTING_TRANSITIONS[status]))
        if (next === 'active') expect(status).toBe('active');
  });

  it('answers only the specification’s five: the ends are states of the table alone', () => {
    expect(LISTING_STATES.filter(isAnswered)).toEqual([...P2P_LISTING_STATUSES]);
    expect(LISTING_STATES.filter((s) => !isAnswered(s))).toEqual([...ENDED_STATES]);
  });

  it('says a listing mid-sale is sold and mid-sale when it cannot be repriced', () => {
    expect(() => nextListingStatus('trade_sent', 'repriced')).toThrow(/sold and mid-sale/);
  });
});
