/**
 * A property test of the money: random concurrent buys, declines, rollbacks, claims and clock jumps
 * over loopback, after which every account's balance equals the sum of its ledger rows, nothing is
 * negative, settled funds never exceed the balance, and no listing is held by two live orders.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy, ledgerProblems } from '../helpers/trading.js';

type Step =
  | { kind: 'buy'; buyer: number; picks: number[] }
  | { kind: 'offer'; buyer: number; action: 'accept' | 'decline' | 'rollback' }
  | { kind: 'claim'; buyer: number }
  | { kind: 'clock'; seconds: number };

const BUYERS = 4;

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('buy' as const),
    buyer: fc.nat(BUYERS - 1),
    picks: fc.array(fc.nat(59), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('offer' as const),
    buyer: fc.nat(BUYERS - 1),
    action: fc.constantFrom('accept' as const, 'decline' as const, 'rollback' as const),
  }),
  fc.record({ kind: fc.constant('claim' as const), buyer: fc.nat(BUYERS - 1) }),
  fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 3 * 86_400 }) }),
);

describe('the ledger under random concurrent trading', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 1500, rateLimits: { read: 100_000, orders: 100_000 } });
  });
  afterAll(() => t.close());

  it('keeps every balance equal to its ledger and never sells a listing twice', async () => {
    const runs = Number(process.env.LEDGER_PROPERTY_RUNS ?? 6);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(stepArbitrary, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 }),
        async (rounds) => {
          const buyers = await Promise.all(
            Array.from({ length: BUYERS }, (_, i) =>
              t.account({
                balance_usd: 50 + i * 200,
                settled_usd: i * 100,
                trading: true,
                autoclaim: i % 2 === 0,
              }),
            ),
          );
          for (const round of rounds) await Promise.all(round.map((step) => run(t, buyers, step)));
          for (const buyer of buyers) expect(await ledgerProblems(t, buyer.key)).toEqual([]);
          expect(await orderProblems(t, buyers)).toEqual([]);
        },
      ),
      { numRuns: runs, endOnFailure: true },
    );
  });
});

async function run(t: TestService, buyers: { key: string; accountId: string }[], step: Step): Promise<void> {
  if (step.kind === 'clock') return advance(t, step.seconds);
  const buyer = buyers[step.buyer] as { key: string; accountId: string };
  if (step.kind === 'buy') {
    const page = (await t.call('/listings?limit=60&sort=price_asc', { key: buyer.key })).body.items;
    const ids = [...new Set(step.picks.map((i) => page[i % page.length]?.id))];
    await buy(t, buyer.key, { listing_ids: ids });
    return;
  }
  const orders = (await t.call('/orders?limit=100', { key: buyer.key })).body.data;
  const order = orders[0];
  if (!order) return;
  if (step.kind === 'claim') {
    await t.call(`/orders/${order.order_id}/claim`, { key: buyer.key, method: 'POST' });
    return;
  }
  const offerId = order.items.find(
    (i: { steam_trade_offer_id: string | null }) => i.steam_trade_offer_id,
  )?.steam_trade_offer_id;
  if (offerId) await t.sandbox(`/offers/${offerId}`, { action: step.action });
}

/** Listings two live orders hold at once, and refunds that are not exactly the returned items' prices. */
async function orderProblems(t: TestService, buyers: { key: string }[]): Promise<string[]> {
  const held = new Map<string, number>();
  const problems: string[] = [];
  for (const buyer of buyers) {
    const orders = (await t.call('/orders?limit=100', { key: buyer.key })).body.data;
    for (const order of orders) {
      let returned = 0;
      for (const item of order.items) {
        if (item.status === 'returned') returned += Math.round(item.price_usd * 100);
        else held.set(item.listing_id, (held.get(item.listing_id) ?? 0) + 1);
      }
      const refunded = order.refund === null ? 0 : Math.round(order.refund.amount_usd * 100);
      if (refunded !== returned)
        problems.push(`${order.order_id} refunded ${refunded} for ${returned} returned`);
    }
  }
  for (const [id, n] of held) if (n > 1) problems.push(`${id} held by ${n} orders`);
  return problems;
}
