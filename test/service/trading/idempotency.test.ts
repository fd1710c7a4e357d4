/** Idempotent buys through Trading.buy on a real (in-memory) DuckDB: replays (whatever the request), keys in use, keys left free. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/contract/api-error.js';
import { UnitOfWorkRunner } from '../../../src/service/core/unit-of-work.js';
import { Trading } from '../../../src/service/trading/trading.js';
import { TradingSettings } from '../../../src/service/trading/trading-settings.js';
import { listing, openTrading, type TradingFixture } from './fixture.js';

let f: TradingFixture;

beforeEach(async () => {
  f = await openTrading();
  f.listings.add(listing('c1', 1000), listing('c2', 500));
});
afterEach(() => f.close());

const codeOf = (error: unknown) => (isApiError(error) ? error.code : `not a refusal: ${String(error)}`);

describe('Trading.buy with a key', () => {
  it('replays the first receipt byte for byte and charges once', async () => {
    const buyer = await f.buyer(5000);
    const first = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    f.clock.advance(60_000);
    const again = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    expect(again).toEqual({ receipt: first.receipt, replayed: true });
    expect((await f.ledger(buyer.id)).filter((row) => row.type === 'purchase')).toHaveLength(1);
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(4000);
  });

  it('replays after a restart from the order row alone', async () => {
    const buyer = await f.buyer(5000);
    const first = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    const reopened = await openTradingOn(f);
    expect(await reopened.buy(f.request(buyer, ['c1'], { customId: 'k-1' }))).toEqual({
      receipt: first.receipt,
      replayed: true,
    });
  });

  it('replays the first receipt to the key with another request, and buys nothing more', async () => {
    const buyer = await f.buyer(5000);
    const first = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1', fingerprint: 'body-1' }));
    const again = await f.trading.buy(f.request(buyer, ['c2'], { customId: 'k-1', fingerprint: 'body-2' }));
    expect(again).toEqual({ receipt: first.receipt, replayed: true });
    expect(f.listings.live.has('c2')).toBe(true);
    expect(await f.orderCount()).toBe(1);
  });

  it('answers 409 idempotency_in_progress while the first request with the key runs', async () => {
    const buyer = await f.buyer(5000);
    const first = f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    const second = await f.trading
      .buy(f.request(buyer, ['c1'], { customId: 'k-1' }))
      .catch((e: unknown) => e);
    expect(codeOf(second)).toBe('idempotency_in_progress');
    expect((await first).replayed).toBe(false);
    expect(await f.orderCount()).toBe(1);
  });

  it('leaves the key free after a refusal, so the same request buys once the cause is fixed', async () => {
    const buyer = await f.buyer(500);
    const refused = await f.trading
      .buy(f.request(buyer, ['c1'], { customId: 'k-1' }))
      .catch((e: unknown) => e);
    expect(codeOf(refused)).toBe('insufficient_balance');
    await f.accounts.fund(buyer.id, 1000, true);
    const bought = await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }));
    expect(bought.replayed).toBe(false);
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(500);
  });

  it('keeps keys per account: another account with the same key buys its own order', async () => {
    const [one, two] = [await f.buyer(5000), await f.buyer(5000)];
    const first = await f.trading.buy(f.request(one, ['c1'], { customId: 'k-1' }));
    const second = await f.trading.buy(f.request(two, ['c2'], { customId: 'k-1' }));
    expect(second.replayed).toBe(false);
    expect(second.receipt).not.toBe(first.receipt);
    expect(f.accounts.account(two.id)?.balanceCents).toBe(4500);
  });
});

/** A second Trading on the fixture's database, loaded from it as a restarted service would be. */
async function openTradingOn(fixture: TradingFixture): Promise<Trading> {
  const units = new UnitOfWorkRunner(fixture.db, () => fixture.clock.now());
  const trading = new Trading({
    db: fixture.db,
    units,
    clock: fixture.clock,
    listings: fixture.listings,
    funds: fixture.accounts.ledger,
    accounts: fixture.accounts,
    platform: fixture.platform,
    tradingSettings: new TradingSettings(fixture.db),
    buyableAppIds: [730],
  });
  await trading.load();
  return trading;
}
