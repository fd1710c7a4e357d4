/**
 * A property test of P2P over loopback: after any random sequence of publish, reprice, delist, buy,
 * decline and clock jumps (steps of a round run concurrently), each copy has at most one live
 * listing, every sale credits exactly the price less commission once (a sold listing is answered
 * no more: the sale row names it), the money the buyers lost is exactly
 * the price of what they bought, and every account's ledger sums to its balance.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commissionCents } from '../../src/service/p2p/commission.js';
import { marketItem, publish, readyInventory, sellerWith } from '../helpers/p2p.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy, cents, everyRowOf, ledgerOf, ledgerProblems } from '../helpers/trading.js';

type Step =
  | { kind: 'publish'; seller: number; copy: number; factor: number }
  | { kind: 'reprice'; seller: number; pick: number; factor: number }
  | { kind: 'delist'; seller: number; pick: number }
  | { kind: 'buy'; buyer: number; pick: number }
  | { kind: 'decline'; buyer: number }
  | { kind: 'clock'; seconds: number };

const SELLERS = 2;
const BUYERS = 2;
const COPIES = 3;
const LIVE = ['active', 'trade_pending', 'trade_sent', 'verification_hold'];

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('publish' as const),
    seller: fc.nat(SELLERS - 1),
    copy: fc.nat(COPIES - 1),
    factor: fc.constantFrom(0.3, 1, 1.5),
  }),
  fc.record({
    kind: fc.constant('reprice' as const),
    seller: fc.nat(SELLERS - 1),
    pick: fc.nat(5),
    factor: fc.constantFrom(0.3, 0.8, 2),
  }),
  fc.record({ kind: fc.constant('delist' as const), seller: fc.nat(SELLERS - 1), pick: fc.nat(5) }),
  fc.record({ kind: fc.constant('buy' as const), buyer: fc.nat(BUYERS - 1), pick: fc.nat(5) }),
  fc.record({ kind: fc.constant('decline' as const), buyer: fc.nat(BUYERS - 1) }),
  fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 9 * 86_400 }) }),
);

interface Party {
  accountId: string;
  key: string;
}

describe('P2P under random publish, reprice, delist, buy, decline and clock jumps', () => {
  let t: TestService;
  let item: { name: string; marketUsd: number };
  beforeAll(async () => {
    t = await startTestService({
      listings: 800,
      rateLimits: { read: 1_000_000, orders: 1_000_000, p2p_write: 1_000_000 },
    });
    item = await marketItem(t, (await t.account()).key);
  });
  afterAll(() => t.close());

  it('keeps one live listing per copy, pays each sale once and exactly, and keeps every ledger whole', async () => {
    const runs = Number(process.env.P2P_PROPERTY_RUNS ?? 5);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(stepArbitrary, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 6 }),
        async (rounds) => {
          const sellers: Party[] = [];
          for (let i = 0; i < SELLERS; i++) {
            const seller = await sellerWith(t, item.name, COPIES);
            await readyInventory(t, seller.key);
            sellers.push(seller);
          }
          const buyers = await Promise.all(
            Array.from({ length: BUYERS }, () => t.account({ balance_usd: 1000, trading: true })),
          );
          const context = { t, item, sellers, buyers };
          for (const round of rounds) {
            await Promise.all(round.map((step) => run(context, step)));
            expect(await copyProblems(t, sellers)).toEqual([]);
          }
          // Every sale still open ends: sent, answered (accepted by default, or timed out) and released.
          await advance(t, 10 * 86_400);
          expect(await copyProblems(t, sellers)).toEqual([]);
          expect(await payoutProblems(t, sellers, buyers)).toEqual([]);
          for (const party of [...sellers, ...buyers]) expect(await ledgerProblems(t, party.key)).toEqual([]);
        },
      ),
      { numRuns: runs, endOnFailure: true },
    );
  });
});

interface Context {
  t: TestService;
  item: { name: string; marketUsd: number };
  sellers: Party[];
  buyers: Party[];
}

let keys = 0;

async function run({ t, item, sellers, buyers }: Context, step: Step): Promise<void> {
  const price = (factor: number) => Math.max(0.1, Math.round(item.marketUsd * factor * 100) / 100);
  if (step.kind === 'clock') return advance(t, step.seconds);
  if (step.kind === 'decline') {
    await t.sandbox(`/accounts/${(buyers[step.buyer] as Party).accountId}`, { offers: 'decline' }, 'PATCH');
    return;
  }
  if (step.kind === 'buy') {
    const buyer = buyers[step.buyer] as Party;
    const page = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: buyer.key,
    });
    // Only this run's sellers' listings: earlier runs' listings share the shelf.
    const ours = new Set<string>();
    for (const seller of sellers) for (const l of await listingsOf(t, seller)) ours.add(l.id);
    const p2p = page.body.items.filter((l: any) => l.source === 'p2p' && ours.has(l.id));
    if (p2p.length > 0) await buy(t, buyer.key, { listing_ids: [p2p[step.pick % p2p.length].id] });
    return;
  }
  const seller = sellers[step.seller] as Party;
  if (step.kind === 'publish') {
    const rows = (await t.call('/p2p/inventory', { key: seller.key })).body.data;
    const row = rows[step.copy % Math.max(1, rows.length)];
    if (!row) return;
    const body = {
      operational_asset_id: row.operational_asset_id,
      asset_revision: row.asset_revision,
      price_usd: price(step.factor),
    };
    await publish(t, seller.key, body, `property-${++keys}-${Date.now()}`);
    return;
  }
  const active = (await t.call('/p2p/listings?status=active', { key: seller.key })).body.data;
  const listing = active[step.pick % Math.max(1, active.length)];
  if (!listing) return;
  if (step.kind === 'reprice')
    await t.call(`/p2p/listings/${listing.id}`, {
      key: seller.key,
      method: 'PATCH',
      body: { price_usd: price(step.factor) },
    });
  else await t.call(`/p2p/listings/${listing.id}`, { key: seller.key, method: 'DELETE' });
}

async function listingsOf(t: TestService, seller: Party): Promise<Record<string, any>[]> {
  return (await t.call('/p2p/listings?limit=100', { key: seller.key })).body.data;
}

/** Copies with more than one live listing. */
async function copyProblems(t: TestService, sellers: Party[]): Promise<string[]> {
  const problems: string[] = [];
  for (const seller of sellers) {
    const live = (await listingsOf(t, seller)).filter((l) => LIVE.includes(l.status));
    const assets = live.map((l) => l.asset_id);
    for (const asset of new Set(assets))
      if (assets.filter((a) => a === asset).length > 1) problems.push(`copy ${asset} has two live listings`);
  }
  return problems;
}

/**
 * Sales paid other than once and exactly, and buyers' losses that are not the prices of what sold.
 * A sold listing is no longer answered: its sale is the seller's sale row (order_id is the
 * listing id), and its price is what the buyer's order item was charged.
 */
async function payoutProblems(t: TestService, sellers: Party[], buyers: Party[]): Promise<string[]> {
  const problems: string[] = [];
  const charged = new Map<string, number>();
  for (const buyer of buyers)
    for (const order of await everyRowOf(t, buyer.key, '/orders'))
      if (order.status !== 'cancelled' && order.status !== 'failed')
        for (const item of order.items) charged.set(item.listing_id, cents(item.price_usd));
  let soldCents = 0;
  for (const seller of sellers) {
    const listings = await listingsOf(t, seller);
    for (const listing of listings)
      if (['trade_pending', 'trade_sent', 'verification_hold'].includes(listing.status))
        problems.push(`listing ${listing.id} still ${listing.status} after every step fell due`);
    const sales = (await ledgerOf(t, seller.key)).filter((r) => r.type === 'sale');
    const paidIds = sales.map((r) => r.order_id);
    if (new Set(paidIds).size !== paidIds.length)
      problems.push(`a listing of ${seller.accountId} paid twice`);
    for (const sale of sales) {
      const price = charged.get(sale.order_id);
      if (price === undefined) {
        problems.push(`sale row for ${sale.order_id}, which no buyer paid for`);
        continue;
      }
      if (listings.some((l) => l.id === sale.order_id))
        problems.push(`listing ${sale.order_id} is paid and still answered`);
      if (cents(sale.amount_usd) !== price - commissionCents(price))
        problems.push(`listing ${sale.order_id} paid ${sale.amount_usd} for a price of ${price} cents`);
      soldCents += price;
    }
  }
  let spentCents = 0;
  for (const buyer of buyers)
    spentCents += 100_000 - cents((await t.call('/balance', { key: buyer.key })).body.balance_usd);
  if (spentCents !== soldCents)
    problems.push(`buyers spent ${spentCents} cents for ${soldCents} cents of sales`);
  return problems;
}
