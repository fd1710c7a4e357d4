/**
 * Instant Sell orders over loopback on the test clock: pending → offer_sent → received → completed
 * with the credit owed (pending, outside the balance, unspendable) then paid settled, the basket
 * split across bots, declines, time-outs, rollbacks and copies gone before the offers went out;
 * the offers obey the sandbox controls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSeller,
  grant,
  inventoryIds,
  readyQuote,
  type Seller,
  sellableItems,
  sellOrder,
  sellOrderOf,
} from '../helpers/sell.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy, cents, ledgerOf, ledgerProblems, listingsFor } from '../helpers/trading.js';

let t: TestService;
let item: { name: string; priceUsd: number };

beforeAll(async () => {
  t = await startTestService();
  const reader = await t.account();
  [item] = (await sellableItems(t, reader.key, 1)) as [{ name: string; priceUsd: number }];
});
afterAll(() => t.close());

const DAY = 86_400;

/** A seller with `count` copies, their quote and a placed order (pending). */
async function placed(count: number, behaviour: Record<string, unknown> = {}) {
  const seller = await createSeller(t);
  if (Object.keys(behaviour).length > 0) await t.sandbox(`/accounts/${seller.accountId}`, behaviour, 'PATCH');
  const assetIds = await grant(t, seller, item.name, count);
  const q = await readyQuote(t, seller);
  const created = await sellOrder(t, seller, { quote_id: q.quote_id });
  expect(created.status).toBe(201);
  return { seller, assetIds, quote: q, order: created.body };
}

async function balanceOf(seller: Seller) {
  return (await t.call('/balance', { key: seller.key })).body;
}

async function offersOf(seller: Seller): Promise<Record<string, any>[]> {
  return (await t.sandbox(`/accounts/${seller.accountId}/offers`)).body.data;
}

describe('the sell order lifecycle', () => {
  it('walks pending → offer_sent → received → completed; the credit is pending for 8 days, then settles', async () => {
    const { seller, assetIds, quote, order } = await placed(2);
    expect(order).toMatchObject({
      status: 'pending',
      offers: [],
      total_usd: quote.total_usd,
      credited_usd: 0,
    });
    expect(order.items.map((i: { status: string }) => i.status)).toEqual(['pending', 'pending']);

    await advance(t, 5);
    const sent = await sellOrderOf(t, seller, order.id);
    expect(sent.status).toBe('offer_sent');
    expect(sent.offers).toHaveLength(1);
    const [offer] = sent.offers;
    expect(offer).toMatchObject({ items: assetIds, status: 'sent' });
    expect(offer.bot.profile_url).toBe(`https://steamcommunity.com/profiles/${offer.bot.steam_id}`);
    expect(offer.bot.name).toMatch(/^Instant Sell Bot \d$/);
    expect(await offersOf(seller)).toEqual([
      expect.objectContaining({
        offer_id: offer.trade_offer_id,
        order_id: order.id,
        state: 'active',
        from_steam_id: seller.steamId,
        to_steam_id: offer.bot.steam_id,
      }),
    ]);
    expect(await inventoryIds(t, seller)).toEqual([]);

    await advance(t, 30); // the seller accepts after 30 s by default
    const received = await sellOrderOf(t, seller, order.id);
    expect(received).toMatchObject({ status: 'received', credited_usd: quote.total_usd, settled_usd: 0 });
    expect(received.offers[0].status).toBe('accepted');
    const acceptedAt = Date.parse((await t.sandbox('/clock')).body.now);
    expect(Date.parse(received.settles_at)).toBeGreaterThan(acceptedAt + 8 * DAY * 1000 - 60_000);
    const pending = await balanceOf(seller);
    expect(pending).toMatchObject({ balance_usd: 0, settled_usd: 0, pending_sale_usd: quote.total_usd });
    expect(await ledgerOf(t, seller.key)).toEqual([]);
    const bot = await t.service.context.platform.inventoryOf(offer.bot.steam_id);
    expect(bot.filter((copy) => copy.offer_id === offer.trade_offer_id)).toHaveLength(2);

    await advance(t, 7 * DAY);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    await advance(t, DAY);
    const completed = await sellOrderOf(t, seller, order.id);
    expect(completed).toMatchObject({
      status: 'completed',
      settled_usd: quote.total_usd,
      failure_reason: null,
    });
    const settled = await balanceOf(seller);
    expect(settled).toMatchObject({
      balance_usd: quote.total_usd,
      settled_usd: quote.total_usd,
      pending_sale_usd: 0,
    });
    // One row for the one movement: the credit, paid settled when the protection is over.
    const rows = await ledgerOf(t, seller.key);
    expect(rows.map((r) => [r.type, r.amount_usd, r.order_id])).toEqual([
      ['sale', quote.total_usd, order.id],
    ]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
  });

  it('splits a basket of 25 across 3 bots (9, 8, 8 in quote order); one declined offer leaves the others credited', async () => {
    const { seller, assetIds, order } = await placed(25, { offers: 'ignore' });
    await advance(t, 5);
    const sent = await sellOrderOf(t, seller, order.id);
    expect(sent.offers.map((o: { items: string[] }) => o.items)).toEqual([
      assetIds.slice(0, 9),
      assetIds.slice(9, 17),
      assetIds.slice(17),
    ]);
    expect(new Set(sent.offers.map((o: { bot: { steam_id: string } }) => o.bot.steam_id)).size).toBe(3);
    const [first, second, third] = sent.offers as { trade_offer_id: string }[];
    for (const offer of [first, third])
      expect((await t.sandbox(`/offers/${offer?.trade_offer_id}`, { action: 'accept' })).status).toBe(200);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('offer_sent');
    await t.sandbox(`/offers/${second?.trade_offer_id}`, { action: 'decline' });
    const received = await sellOrderOf(t, seller, order.id);
    expect(received.status).toBe('received');
    expect(received.offers.map((o: { status: string }) => o.status)).toEqual([
      'accepted',
      'declined',
      'accepted',
    ]);
    const kept = received.items.filter((i: { status: string }) => i.status === 'received');
    expect(kept).toHaveLength(17);
    const keptCents = kept.reduce((sum: number, i: { amount_usd: number }) => sum + cents(i.amount_usd), 0);
    expect(cents(received.total_usd)).toBe(keptCents);
    expect(cents(received.credited_usd)).toBe(keptCents);
    expect((await inventoryIds(t, seller)).sort()).toEqual(assetIds.slice(9, 17).sort());
    expect(cents((await balanceOf(seller)).pending_sale_usd)).toBe(keptCents);
  });

  it('ends failed (declined) when the seller declines, with the copies back home and nothing credited', async () => {
    const { seller, assetIds, order } = await placed(1, { offers: 'decline', accept_after_seconds: 10 });
    await advance(t, 5);
    await advance(t, 10);
    const failed = await sellOrderOf(t, seller, order.id);
    expect(failed).toMatchObject({
      status: 'failed',
      failure_reason: 'declined',
      total_usd: 0,
      credited_usd: 0,
    });
    expect(failed.offers[0].status).toBe('declined');
    expect(failed.items[0].status).toBe('returned');
    expect(await inventoryIds(t, seller)).toEqual(assetIds);
    expect(await ledgerOf(t, seller.key)).toEqual([]);
  });

  it('ends failed (expired) when the offer times out after 15 minutes', async () => {
    const { seller, order } = await placed(1, { offers: 'ignore' });
    await advance(t, 5);
    await advance(t, 14 * 60);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('offer_sent');
    await advance(t, 60);
    const failed = await sellOrderOf(t, seller, order.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'expired' });
    expect((await offersOf(seller))[0]?.state).toBe('expired');
    expect(await inventoryIds(t, seller)).toHaveLength(1);
  });

  it('owes nothing and pays nothing when the seller rolls the trade back during the trade protection', async () => {
    const { seller, order } = await placed(1, { offers: 'ignore' });
    await advance(t, 5);
    const offerId = (await sellOrderOf(t, seller, order.id)).offers[0].trade_offer_id;
    await t.sandbox(`/offers/${offerId}`, { action: 'accept' });
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    await advance(t, 3 * DAY);
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'rollback' })).status).toBe(200);
    const failed = await sellOrderOf(t, seller, order.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'rolled_back', credited_usd: 0 });
    expect(failed.items[0].status).toBe('reversed');
    expect(await ledgerOf(t, seller.key)).toEqual([]);
    expect(await balanceOf(seller)).toMatchObject({ balance_usd: 0, pending_sale_usd: 0 });
    expect(await inventoryIds(t, seller)).toHaveLength(1);
    await advance(t, 6 * DAY);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('failed');
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
  });

  it('keeps the credit out of the balance until the protection clears: no order can spend it before', async () => {
    // Three copies: their credit covers a listing of another item (the item's own keep its market price).
    const { seller, quote, order } = await placed(3);
    await advance(t, 35);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    const trader = await t.sandbox(`/accounts/${seller.accountId}/keys`, { trading: true });
    const key: string = trader.body.api_key;
    const [listing] = await listingsFor(t, key, {
      delivery: 'instant',
      where: (l) =>
        l.source !== 'external' &&
        l.api_purchasable !== false &&
        l.market_hash_name !== item.name &&
        l.price_usd <= quote.total_usd,
    });
    const refused = await buy(t, key, { listing_ids: [listing?.id] });
    expect([refused.status, refused.body.code]).toEqual([402, 'insufficient_balance']);
    expect(refused.body).toMatchObject({ balance_usd: 0, settled_usd: 0 });
    expect(await balanceOf(seller)).toMatchObject({ balance_usd: 0, pending_sale_usd: quote.total_usd });
    expect(await ledgerOf(t, seller.key)).toEqual([]);
    await advance(t, 8 * DAY);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('completed');
    const paid = await buy(t, key, { listing_ids: [listing?.id] });
    expect(paid.status).toBe(201);
    const rows = await ledgerOf(t, seller.key);
    expect(rows.map((r) => [r.type, cents(r.amount_usd)])).toEqual([
      ['purchase', -cents(listing?.price_usd ?? 0)],
      ['sale', cents(quote.total_usd)],
    ]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
  });

  it('drops copies that left the inventory before the offers went out, and fails when none is left', async () => {
    const partly = await placed(2);
    await t.sandbox(
      `/accounts/${partly.seller.accountId}/inventory/${partly.assetIds[0]}`,
      undefined,
      'DELETE',
    );
    await advance(t, 5);
    const sent = await sellOrderOf(t, partly.seller, partly.order.id);
    expect(sent.status).toBe('offer_sent');
    expect(sent.items.map((i: { status: string }) => i.status)).toEqual(['unavailable', 'offered']);
    expect(sent.offers[0].items).toEqual([partly.assetIds[1]]);

    const gone = await placed(1);
    await t.sandbox(`/accounts/${gone.seller.accountId}/inventory/${gone.assetIds[0]}`, undefined, 'DELETE');
    await advance(t, 5);
    const failed = await sellOrderOf(t, gone.seller, gone.order.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'items_unavailable', offers: [] });
    expect(await offersOf(gone.seller)).toEqual([]);
  });

  it('fails (cannot_trade) without sending when the seller became trade banned', async () => {
    const { seller, order } = await placed(1);
    await t.sandbox(`/accounts/${seller.accountId}`, { inventory: 'trade_banned' }, 'PATCH');
    await advance(t, 5);
    expect(await sellOrderOf(t, seller, order.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'cannot_trade',
    });
    expect(await offersOf(seller)).toEqual([]);
  });

  it("re-plans an open bot offer when the seller's offers behaviour changes", async () => {
    const { seller, order } = await placed(1, { offers: 'ignore' });
    await advance(t, 5);
    await t.sandbox(`/accounts/${seller.accountId}`, { offers: 'accept', accept_after_seconds: 1 }, 'PATCH');
    await advance(t, 1);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
  });
});
