/** Placing orders through Trading.buy on a real (in-memory) DuckDB: the ledger row, the catalogue, the offer, and every refusal writing nothing. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../src/contract/api-error.js';
import type { Order } from '../../../src/contract/order.js';
import { listing, openTrading, type TradingFixture } from './fixture.js';

let f: TradingFixture;

beforeEach(async () => {
  f = await openTrading();
});
afterEach(() => f.close());

/** The refusal `work` ends with. */
async function refusalOf(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error) || !('code' in error)) throw new Error(`not a refusal: ${String(error)}`);
  return error as ApiError;
}

describe('Trading.buy', () => {
  it('debits the balance with one purchase row, takes the listings off the market and sends their offer', async () => {
    f.listings.add(listing('c1', 1250), listing('c2', 750), listing('c3', 100));
    const buyer = await f.buyer(5000);
    const bought = await f.trading.buy(f.request(buyer, ['c1', 'c2']));
    const order = JSON.parse(bought.receipt) as Order;
    expect(bought.replayed).toBe(false);
    expect(order).toMatchObject({ charged_total_usd: 20, status: 'delivering', item_count: 2 });
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(3000);
    expect(await f.ledger(buyer.id)).toEqual([
      { type: 'deposit', cents: 5000, orderId: null },
      { type: 'purchase', cents: -2000, orderId: order.order_id },
    ]);
    expect([...f.listings.live.keys()]).toEqual(['c3']);
    expect(f.platform.pendingOfferCount(buyer.steamId as string)).toBe(1);
    expect(await f.trading.order(buyer.id, order.order_id, 730)).toMatchObject({ chargedCents: 2000 });
  });

  it('pays from pending funds first, and only from settled funds for external delivery', async () => {
    f.listings.add(listing('c1', 1000), listing('c2', 1000));
    const buyer = await f.buyer(1500, { pendingCents: 800, externalBuy: true });
    await f.trading.buy(f.request(buyer, ['c1']));
    expect(f.accounts.account(buyer.id)).toMatchObject({ balanceCents: 1300, settledCents: 1300 });
    const external = { kind: 'market_buy', settledOnly: true, steamId: '76561197960265999' } as const;
    await f.trading.buy(f.request(buyer, ['c2'], external));
    expect(f.accounts.account(buyer.id)).toMatchObject({ balanceCents: 300, settledCents: 300 });
    expect((await f.ledger(buyer.id)).map((row) => row.cents)).toEqual([2300, -1000, -1000]);
  });

  it('answers 402 insufficient_balance with the balances in USD and writes nothing', async () => {
    f.listings.add(listing('c1', 2500));
    const buyer = await f.buyer(2000);
    const refused = await refusalOf(f.trading.buy(f.request(buyer, ['c1'])));
    expect(refused.status).toBe(402);
    expect(refused.toBody()).toEqual({
      code: 'insufficient_balance',
      detail: 'the balance is below the order total; fund the account on the website',
      balance_usd: 20,
      required_usd: 25,
      settled_usd: 20,
    });
    expect(await f.ledger(buyer.id)).toHaveLength(1);
    expect(await f.orderCount()).toBe(0);
    expect(f.listings.live.has('c1')).toBe(true);
  });

  it('answers 402 insufficient_settled_balance when only pending funds would cover a market buy', async () => {
    f.listings.add(listing('c1', 1000));
    const buyer = await f.buyer(500, { pendingCents: 1000, externalBuy: true });
    const refused = await refusalOf(
      f.trading.buy(
        f.request(buyer, ['c1'], { kind: 'market_buy', settledOnly: true, steamId: '76561197960265999' }),
      ),
    );
    expect(refused.toBody()).toMatchObject({
      code: 'insufficient_settled_balance',
      balance_usd: 15,
      required_usd: 10,
      settled_usd: 5,
    });
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(1500);
  });

  it.each([
    ['a listing that is not live', ['c9'], {}, 'item_unavailable', { unavailable_ids: ['c9'] }],
    [
      'a total above max_price_usd',
      ['c1', 'c2'],
      { maxPriceCents: 1999 },
      'price_moved',
      { current_total_usd: 20, max_price_usd: 19.99 },
    ],
    ['an item the API cannot buy', ['c1', 'cx'], {}, 'unsupported_item', { unsupported_ids: ['cx'] }],
    ['external and platform items together', ['c1', 'e1'], {}, 'cannot_mix_sources', {}],
    ['two external items', ['e1', 'e2'], {}, 'one_external_per_order', {}],
    [
      'a game the key cannot buy in',
      ['c1'],
      { appId: 570 },
      'unsupported_game',
      { supported_app_ids: [730] },
    ],
  ] as const)('refuses %s with %s and charges nothing', async (_, ids, change, code, facts) => {
    f.listings.add(
      listing('c1', 1000),
      listing('c2', 1000),
      listing('cx', 1000, { api_purchasable: false }),
      listing('e1', 1000, { source: 'external' }),
      listing('e2', 1000, { source: 'external' }),
    );
    const buyer = await f.buyer(10_000);
    const refused = await refusalOf(f.trading.buy(f.request(buyer, [...ids], change)));
    expect(refused.toBody()).toEqual({ code, detail: expect.any(String), ...facts });
    expect(f.accounts.account(buyer.id)?.balanceCents).toBe(10_000);
    expect(await f.orderCount()).toBe(0);
    expect(f.listings.live.size).toBe(5);
  });

  it('refuses a restricted account and one without a linked platform account before anything else', async () => {
    f.listings.add(listing('c1', 100));
    const buyer = await f.buyer(1000);
    // The route's request for a buyer with no platform account linked: no recipient.
    const unlinked = f.request(buyer, ['c1'], { steamId: null });
    unlinked.account = { ...unlinked.account, steamId: null };
    expect((await refusalOf(f.trading.buy(unlinked))).code).toBe('steam_account_required');
    const restricted = f.request(buyer, ['c1']);
    restricted.account = { ...restricted.account, status: 'restricted' };
    expect((await refusalOf(f.trading.buy(restricted))).code).toBe('account_restricted');
    const external = f.request(buyer, ['c1'], { kind: 'market_buy', settledOnly: true });
    expect((await refusalOf(f.trading.buy(external))).code).toBe('external_buy_disabled');
    expect(await f.orderCount()).toBe(0);
  });

  it('answers 409 concurrent_update with Retry-After to an order racing for a listing in flight', async () => {
    f.listings.add(listing('c1', 100));
    const [first, second] = [await f.buyer(1000), await f.buyer(1000)];
    const racing = [f.trading.buy(f.request(first, ['c1'])), f.trading.buy(f.request(second, ['c1']))];
    const [won, lost] = await Promise.allSettled(racing);
    expect(won?.status).toBe('fulfilled');
    const refusal = (lost as PromiseRejectedResult).reason as ApiError;
    expect([refusal.code, refusal.headers]).toEqual(['concurrent_update', { 'retry-after': '1' }]);
    expect(f.accounts.account(second.id)?.balanceCents).toBe(1000);
  });
});

describe('Trading order look-ups', () => {
  it("finds an account's order by id and custom_id, and answers 404 not_found to anyone else", async () => {
    f.listings.add(listing('c1', 100));
    const [buyer, other] = [await f.buyer(1000), await f.buyer(1000)];
    const order = JSON.parse(
      (await f.trading.buy(f.request(buyer, ['c1'], { customId: 'k-1' }))).receipt,
    ) as Order;
    expect((await f.trading.orderByCustomId(buyer.id, 'k-1', 730)).id).toBe(order.order_id);
    expect(await f.trading.findByCustomId(other.id, 'k-1', 730)).toBeUndefined();
    const lookups = [
      () => f.trading.order(other.id, order.order_id, 730),
      () => f.trading.order(buyer.id, order.order_id, 570),
      () => f.trading.orderByCustomId(other.id, 'k-1', 730),
      () => f.trading.claim(other.id, order.order_id, 730),
    ];
    for (const lookup of lookups) expect((await refusalOf(lookup())).toBody().code).toBe('not_found');
  });

  it('answers 409 not_claimable for an order still inside its trade hold', async () => {
    const lockEnds = new Date(Date.parse('2026-01-09T00:00:00.000Z')).toISOString();
    f.listings.add(listing('h1', 100, { delivery: 'hold', tradable: false, tradable_at: lockEnds }));
    const buyer = await f.buyer(1000);
    const order = JSON.parse((await f.trading.buy(f.request(buyer, ['h1']))).receipt) as Order;
    expect(order.status).toBe('hold');
    const refused = await refusalOf(f.trading.claim(buyer.id, order.order_id, 730));
    expect([refused.code, refused.status]).toEqual(['not_claimable', 409]);
  });
});
