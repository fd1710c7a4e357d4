/** The P2P commission (5%, half up, at least a cent) and the floor (half the market price, rounded up). */
import { describe, expect, it } from 'vitest';
import { commissionCents, floorCents } from '../../../src/service/p2p/commission.js';

describe('commissionCents', () => {
  it.each([
    [10, 1],
    [29, 1],
    [30, 2],
    [1000, 50],
    [1234, 62],
    [1250, 63],
    [10_000_000, 500_000],
  ])('takes %i cents → %i', (price, commission) => {
    expect(commissionCents(price)).toBe(commission);
  });

  it('always leaves the seller a positive payout in whole cents', () => {
    for (let price = 10; price <= 5000; price++) {
      const payout = price - commissionCents(price);
      expect(Number.isInteger(payout) && payout > 0 && payout < price).toBe(true);
    }
  });
});

describe('floorCents', () => {
  it.each([
    [1000, 500],
    [1001, 501],
    [3, 2],
  ])('of a market price of %i cents is %i', (market, floor) => {
    expect(floorCents(market)).toBe(floor);
  });
});
