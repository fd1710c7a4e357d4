/**
 * Instant Sell orders over loopback on the test clock: pending → offer_sent → received → completed
 * with the credit pending then settled, the basket split across bots, declines, time-outs,
 * rollbacks and copies gone before the offers went out; the offers obey the sandbox controls.
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
import { advance, cents, ledgerOf, ledgerProblems } from '../helpers/trading.js';

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
    expect([cents(pending.balance_usd), cents(pending.settled_usd)]).toEqual([cents(quote.total_usd), 0]);
    const [credit] = await ledgerOf(t, seller.key);
    expect(credit).toMatchObject({ type: 'sale', amount_usd: quote.total_usd, order_id: order.id });
    expect(credit?.description).toContain('pending until');
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
    expect([cents(settled.balance_usd), cents(settled.settled_usd)]).toEqual([
      cents(quote.total_usd),
      cents(quote.total_usd),
    ]);
    const rows = await ledgerOf(t, seller.key);
    expect(rows.map((r) => [r.type, r.amount_usd, r.order_id])).toEqual([
      ['sale', 0, order.id],
      ['sale', quote.total_usd, order.id],
    ]);
    expect(rows[0]?.description).toContain('settled');
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
    expect(cents((await balanceOf(seller)).balance_usd)).toBe(keptCents);
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

  it('takes the credit back when the seller rolls the trade back during the trade protection', async () => {
    const { seller, quote, order } = await placed(1, { offers: 'ignore' });
    await advance(t, 5);
    const offerId = (await sellOrderOf(t, seller, order.id)).offers[0].trade_offer_id;
    await t.sandbox(`/offers/${offerId}`, { action: 'accept' });
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    await advance(t, 3 * DAY);
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'rollback' })).status).toBe(200);
    const failed = await sellOrderOf(t, seller, order.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'rolled_back', credited_usd: 0 });
    expect(failed.items[0].status).toBe('reversed');
    const rows = await ledgerOf(t, seller.key);
    expect(rows.map((r) => [r.type, r.amount_usd])).toEqual([
      ['sale', -quote.total_usd],
      ['sale', quote.total_usd],
    ]);
    expect(cents((await balanceOf(seller)).balance_usd)).toBe(0);
    expect(await inventoryIds(t, seller)).toHaveLength(1);
    await advance(t, 6 * DAY);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('failed');
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
  });

  it('refuses a rollback while the balance cannot repay the credit, and changes nothing', async () => {
    const { seller, quote, order } = await placed(1, { offers: 'ignore' });
    await advance(t, 5);
    const offerId = (await sellOrderOf(t, seller, order.id)).offers[0].trade_offer_id;
    await t.sandbox(`/offers/${offerId}`, { action: 'accept' });
    // The seller spends the pending credit (a purchase would).
    const { units, accounts } = t.service.context;
    await units.run((uow) =>
      accounts.ledger.debit(uow, {
        accountId: seller.accountId,
        type: 'purchase',
        amountCents: cents(quote.total_usd),
        orderId: 'o_spent',
        description: 'spent',
      }),
    );
    const refused = await t.sandbox(`/offers/${offerId}`, { action: 'rollback' });
    expect([refused.status, refused.body.code]).toEqual([402, 'insufficient_balance']);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    expect((await offersOf(seller))[0]?.state).toBe('accepted');
    expect(await inventoryIds(t, seller)).toEqual([]);
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
