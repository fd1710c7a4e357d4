/** The sandbox's faults around the real placement (Trading built with them as its PlacementWrapper), on a real (in-memory) DuckDB. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/contract/api-error.js';
import { Faults } from '../../../src/service/trading/faults.js';
import { listing, openTrading, type TradingFixture } from './fixture.js';

let f: TradingFixture;
let faults: Faults;

beforeEach(async () => {
  faults = new Faults();
  f = await openTrading(faults);
  f.listings.add(listing('c1', 1000), listing('c2', 500));
});
afterEach(() => f.close());

const codeOf = (error: unknown) => (isApiError(error) ? error.code : `not a refusal: ${String(error)}`);

describe('Faults around Trading.buy', () => {
  it.each([
    [{ market_unavailable: true }, 'market_unavailable', 503],
    [{ price_updating: true }, 'price_updating', 409],
    [{ concurrent_update_next: 1 }, 'concurrent_update', 409],
  ] as const)(
    '%o refuses before placing: nothing charged, the listing still live',
    async (armed, code, status) => {
      faults.configure(armed);
      const buyer = await f.buyer(5000);
      const refused = await f.trading
        .buy(f.request(buyer, ['c1'], { customId: 'k-1' }))
        .catch((e: unknown) => e);
      expect([codeOf(refused), isApiError(refused) && refused.status]).toEqual([code, status]);
      expect(f.accounts.account(buyer.id)?.balanceCents).toBe(5000);
      expect(f.listings.live.has('c1')).toBe(true);
      faults.configure({ market_unavailable: false, price_updating: false });
      expect((await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }))).replayed).toBe(false);
    },
  );

  it('fails the next order at its last step and rolls all of it back', async () => {
    faults.configure({ order_failed_next: 1 });
    const buyer = await f.buyer(5000);
    const failed = await f.trading.buy(f.request(buyer, ['c1'])).catch((e: unknown) => e);
    expect([codeOf(failed), isApiError(failed) && failed.status]).toEqual(['order_failed', 500]);
    expect(await f.orderCount()).toBe(0);
    expect(await f.ledger(buyer.id)).toHaveLength(1);
    expect(f.listings.live.has('c1')).toBe(true);
    expect(f.platform.pendingOfferCount(buyer.steamId as string)).toBe(0);
    expect(faults.view().order_failed_next).toBe(0);
    await f.trading.buy(f.request(buyer, ['c1']));
    expect(await f.orderCount()).toBe(1);
  });

  it('spends no armed order_failed on an order refused before its last step', async () => {
    faults.configure({ order_failed_next: 1 });
    const buyer = await f.buyer(100);
    expect(codeOf(await f.trading.buy(f.request(buyer, ['c1'])).catch((e: unknown) => e))).toBe(
      'insufficient_balance',
    );
    expect(faults.view().order_failed_next).toBe(1);
  });

  it('lets a timed-out order complete, answers 504, and replays the order to its key', async () => {
    faults.configure({ upstream_timeout_next: 1 });
    const buyer = await f.buyer(5000);
    const timedOut = await f.trading
      .buy(f.request(buyer, ['c1'], { customId: 'k-1' }))
      .catch((e: unknown) => e);
    expect([codeOf(timedOut), isApiError(timedOut) && timedOut.status]).toEqual(['upstream_timeout', 504]);
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(4000);
    const replay = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    expect(replay.replayed).toBe(true);
    expect(JSON.parse(replay.receipt)).toMatchObject({ custom_id: 'k-1', charged_total_usd: 10 });
  });

  it('counts the armed orders down and keeps the faults as configured', () => {
    expect(faults.configure({ order_failed_next: 2, price_updating: true })).toEqual({
      market_unavailable: false,
      price_updating: true,
      upstream_timeout_next: 0,
      order_failed_next: 2,
      concurrent_update_next: 0,
    });
  });
});
