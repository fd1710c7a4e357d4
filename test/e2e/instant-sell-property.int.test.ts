/**
 * A property test of Instant Sell: random concurrent grants, removals, quotes and orders, offer
 * answers, rollbacks and clock jumps over loopback, after which every seller's balance equals its
 * ledger, every order's credit is exactly what its received items are worth (settled once, when
 * completed), and no copy is in two live sell orders.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSeller,
  grant,
  quote,
  readyQuote,
  type Seller,
  sellableItems,
  sellOrder,
} from '../helpers/sell.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, cents, ledgerOf, ledgerProblems } from '../helpers/trading.js';

type Step =
  | { kind: 'grant'; seller: number; count: number }
  | { kind: 'remove'; seller: number }
  | { kind: 'sell'; seller: number; minTotal: boolean }
  | { kind: 'answer'; seller: number; action: 'accept' | 'decline' | 'rollback' }
  | { kind: 'clock'; seconds: number };

const SELLERS = 3;
const seller = fc.nat(SELLERS - 1);

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('grant' as const), seller, count: fc.integer({ min: 1, max: 14 }) }),
  fc.record({ kind: fc.constant('remove' as const), seller }),
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('sell' as const), seller, minTotal: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      seller,
      action: fc.constantFrom('accept' as const, 'decline' as const, 'rollback' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 120 }) }),
      fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 4 * 86_400 }) }),
    ),
  },
);

describe('Instant Sell money under random concurrent selling', () => {
  let t: TestService;
  let itemName: string;
  beforeAll(async () => {
    t = await startTestService({ rateLimits: { read: 100_000, sell_write: 100_000 } });
    const reader = await t.account();
    itemName = ((await sellableItems(t, reader.key, 1))[0] as { name: string }).name;
  });
  afterAll(() => t.close());

  async function run(sellers: Seller[], step: Step): Promise<void> {
    if (step.kind === 'clock') return advance(t, step.seconds);
    const who = sellers[step.seller] as Seller;
    if (step.kind === 'grant') {
      await grant(t, who, itemName, step.count);
    } else if (step.kind === 'remove') {
      const rows = (await t.sandbox(`/accounts/${who.accountId}/inventory`)).body.data;
      if (rows[0])
        await t.sandbox(`/accounts/${who.accountId}/inventory/${rows[0].asset_id}`, undefined, 'DELETE');
    } else if (step.kind === 'sell') {
      const q = await quote(t, who);
      if (q.status !== 201) return;
      await sellOrder(t, who, {
        quote_id: q.body.quote_id,
        ...(step.minTotal ? { min_total_usd: q.body.total_usd } : {}),
      });
    } else {
      const offers: { offer_id: string; state: string }[] = (
        await t.sandbox(`/accounts/${who.accountId}/offers`)
      ).body.data;
      const wanted = step.action === 'rollback' ? 'accepted' : 'active';
      const offer = offers.find((o) => o.state === wanted);
      if (offer) await t.sandbox(`/offers/${offer.offer_id}`, { action: step.action });
    }
  }

  it('keeps balances equal to the ledger and each credit equal to the received items, settled once', async () => {
    const runs = Number(process.env.SELL_PROPERTY_RUNS ?? 6);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(stepArbitrary, { minLength: 1, maxLength: 5 }), { minLength: 2, maxLength: 7 }),
        async (rounds) => {
          const sellers = await Promise.all(Array.from({ length: SELLERS }, () => createSeller(t)));
          // Each seller starts with copies and an inventory the platform has finished reading.
          for (const s of sellers) {
            await grant(t, s, itemName, 3);
            await readyQuote(t, s);
          }
          for (const round of rounds) await Promise.all(round.map((step) => run(sellers, step)));
          // Let every open offer and every protection run out, then check the end state too.
          const middle = await Promise.all(sellers.map((s) => sellProblems(t, s)));
          await advance(t, 9 * 86_400);
          const end = await Promise.all(sellers.map((s) => sellProblems(t, s)));
          expect([...middle.flat(), ...end.flat()]).toEqual([]);
        },
      ),
      { numRuns: runs },
    );
  });
});

/** What is wrong with a seller's money and sell orders (empty when nothing is). */
async function sellProblems(t: TestService, seller: Seller): Promise<string[]> {
  const problems = await ledgerProblems(t, seller.key);
  const rows = await ledgerOf(t, seller.key);
  const orders: any[] = (await t.call('/sell/orders?limit=100', { key: seller.key })).body.data;
  const live = new Map<string, string>();
  for (const order of orders) {
    const received = order.items.filter((i: { status: string }) => i.status === 'received');
    const worth = received.reduce((sum: number, i: { amount_usd: number }) => sum + cents(i.amount_usd), 0);
    const own = rows.filter((r) => r.order_id === order.id);
    const paid = own.reduce((sum, r) => sum + cents(r.amount_usd), 0);
    const open = order.status === 'pending' || order.status === 'offer_sent';
    if (!open && cents(order.credited_usd) !== worth)
      problems.push(`${order.id} credited ${order.credited_usd}, its received items are worth ${worth}`);
    // Paid once, settled, when the protection is over: one sale row, none before.
    const expected = order.status === 'completed' ? [cents(order.credited_usd)] : [];
    if (JSON.stringify(own.map((r) => cents(r.amount_usd))) !== JSON.stringify(expected))
      problems.push(
        `${order.id} is ${order.status} with sale rows of ${paid}, credited_usd ${order.credited_usd}`,
      );
    if (order.status === 'completed' && order.settled_usd !== order.credited_usd)
      problems.push(`${order.id} completed with ${order.settled_usd} of ${order.credited_usd} settled`);
    if (order.status === 'failed' && cents(order.credited_usd) !== 0)
      problems.push(`${order.id} failed but keeps a credit of ${order.credited_usd}`);
    for (const item of order.items) {
      if (!['pending', 'offered', 'received'].includes(item.status)) continue;
      const other = live.get(item.asset_id);
      if (other) problems.push(`copy ${item.asset_id} is live in ${other} and ${order.id}`);
      live.set(item.asset_id, order.id);
    }
  }
  return problems;
}
