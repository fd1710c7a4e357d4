/** The order lifecycle on the simulated platform and the test clock: each offer outcome, holds, claims, refunds, re-listing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/service/core/clock.js';
import { sellerDelayMs } from '../../src/service/platform/seller-delay.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream } from '../helpers/stream.js';
import { advance, buy, ledgerOf, ledgerProblems, listingsFor } from '../helpers/trading.js';

describe('order lifecycle', () => {
  let t: TestService;
  beforeAll(async () => {
    // Time moves only when a test moves it, so a slow machine cannot let an offer's answer land early.
    const frozenAt = Date.now();
    t = await startTestService({
      listings: 1500,
      rateLimits: { read: 10_000, orders: 10_000 },
      clock: createClock({ realNow: () => frozenAt }),
    });
  });
  afterAll(() => t.close());

  async function order(key: string, id: string) {
    return (await t.call(`/orders/${id}`, { key })).body;
  }

  it('delivers an instant order when the buyer accepts the offer (after 30 s by default)', async () => {
    const { key, accountId } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({
      status: 'delivering',
      delivery: 'instant',
      item_count: 1,
      refund: null,
    });
    const offerId = placed.body.items[0].steam_trade_offer_id;
    expect(offerId).toEqual(expect.any(String));
    const offers = (await t.sandbox(`/accounts/${accountId}/offers`)).body.data;
    expect(offers).toEqual([
      expect.objectContaining({ offer_id: offerId, order_id: placed.body.order_id, state: 'active' }),
    ]);
    await advance(t, 29);
    expect((await order(key, placed.body.order_id)).status).toBe('delivering');
    await advance(t, 2);
    const done = await order(key, placed.body.order_id);
    expect(done.status).toBe('completed');
    expect(done.items[0]).toMatchObject({ status: 'delivered', return_reason: null });
    expect(done.items[0].steam_trade_offer_finished_at).toEqual(expect.any(String));
    const inventory = (await t.sandbox(`/accounts/${accountId}/inventory`)).body.data;
    expect(inventory).toEqual([expect.objectContaining({ listing_id: listing?.id })]);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('claims an order that never held as a no-op in every state: 200 with the order', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    const claim = () => t.call(`/orders/${placed.body.order_id}/claim`, { key, method: 'POST' });
    const delivering = await claim();
    expect([delivering.status, delivering.body.status]).toEqual([200, 'delivering']);
    await advance(t, 31);
    const completed = await claim();
    expect([completed.status, completed.body.status]).toEqual([200, 'completed']);
    expect(completed.text).toBe((await t.call(`/orders/${placed.body.order_id}`, { key })).text);
  });

  it.each([
    ['GET /orders', (_id: string) => '/orders?appId=999', 'GET'],
    ['GET /orders/info', (_id: string) => '/orders/info?custom_id=whatever-1&appId=999', 'GET'],
    ['GET /orders/{id}', (id: string) => `/orders/${id}?appId=999`, 'GET'],
    ['POST /orders/{id}/claim', (id: string) => `/orders/${id}/claim?appId=999`, 'POST'],
    ['GET /orders for a game the key may not use', (_id: string) => '/orders?appId=252490', 'GET'],
  ])('answers %s with an appId the key may not use 400 unsupported_game', async (_name, path, method) => {
    const { key } = await t.account({ balance_usd: 100, trading: true, app_ids: [730, 570] });
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    const refused = await t.call(path(placed.body.order_id), { key, method });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'unsupported_game', supported_app_ids: [730, 570] });
  });

  it('removes a bought listing from /listings and brings a returned one back with a new listed_at', async () => {
    const { key, accountId } = await t.account();
    await t.sandbox(`/accounts/${accountId}`, { offers: 'decline', accept_after_seconds: 5 }, 'PATCH');
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const name = encodeURIComponent(listing?.market_hash_name ?? '');
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    const ids = async () => (await t.call(`/listings?name=${name}&limit=200`, { key })).body.items;
    expect((await ids()).map((l: { id: string }) => l.id)).not.toContain(listing?.id);
    await advance(t, 6);
    const back = (await ids()).find((l: { id: string }) => l.id === listing?.id);
    expect(back).toBeDefined();
    expect(Date.parse(back.listed_at)).toBeGreaterThan(Date.parse(listing?.listed_at ?? ''));
    const cancelled = await order(key, placed.body.order_id);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      refund: { amount_usd: listing?.price_usd, partial: false },
    });
    expect(cancelled.items[0]).toMatchObject({ status: 'returned', return_reason: 'declined' });
    const rows = await ledgerOf(t, key);
    expect(
      rows
        .filter((r) => r.order_id === placed.body.order_id)
        .map((r) => r.type)
        .sort(),
    ).toEqual(['purchase', 'refund']);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('tells the listing stream of a sale (gone) and of the return (new, new listed_at)', async () => {
    const { key, accountId } = await t.account();
    await t.sandbox(`/accounts/${accountId}`, { offers: 'decline', accept_after_seconds: 5 }, 'PATCH');
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const stream = openStream(t.baseUrl, key);
    try {
      await stream.opened;
      await buy(t, key, { listing_ids: [listing?.id] });
      await stream.until((events) => events.some((e) => e.type === 'gone' && e.data.id === listing?.id));
      await advance(t, 6);
      await stream.until((events) => events.some((e) => e.type === 'new' && e.data.id === listing?.id));
      const back = stream.events.find((e) => e.type === 'new' && e.data.id === listing?.id);
      expect(Date.parse(back?.data.listed_at)).toBeGreaterThan(Date.parse(listing?.listed_at ?? ''));
      expect(back?.data.price_usd).toBe(listing?.price_usd);
    } finally {
      stream.close();
    }
  });

  it('returns the items of an ignored offer after 15 minutes as trade_timeout, not before', async () => {
    const { key, accountId } = await t.account();
    await t.sandbox(`/accounts/${accountId}`, { offers: 'ignore' }, 'PATCH');
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    await advance(t, 14 * 60 + 59);
    expect((await order(key, placed.body.order_id)).status).toBe('delivering');
    await advance(t, 2);
    const timedOut = await order(key, placed.body.order_id);
    expect(timedOut.status).toBe('cancelled');
    expect(timedOut.items[0].return_reason).toBe('trade_timeout');
  });

  it('refunds a rolled-back trade, takes the item out of the inventory, and ends the order failed', async () => {
    const { key, accountId } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    const offerId = placed.body.items[0].steam_trade_offer_id;
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'accept' })).status).toBe(200);
    expect((await order(key, placed.body.order_id)).status).toBe('completed');
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'rollback' })).status).toBe(200);
    const failed = await order(key, placed.body.order_id);
    expect(failed).toMatchObject({
      status: 'failed',
      refund: { amount_usd: listing?.price_usd, partial: false },
    });
    expect(failed.items[0].return_reason).toBe('rolled_back');
    expect((await t.sandbox(`/accounts/${accountId}/inventory`)).body.data).toEqual([]);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('gives a partial refund when one leg of a multi-item order comes back', async () => {
    const { key } = await t.account();
    const [instant] = await listingsFor(t, key, { delivery: 'instant' });
    const [held] = await listingsFor(t, key, { delivery: 'hold' });
    const placed = await buy(t, key, { listing_ids: [instant?.id, held?.id] });
    expect(placed.body.status).toBe('delivering');
    const offerId = placed.body.items[0].steam_trade_offer_id;
    await t.sandbox(`/offers/${offerId}`, { action: 'decline' });
    const partly = await order(key, placed.body.order_id);
    expect(partly.status).toBe('hold');
    expect(partly.refund).toMatchObject({ amount_usd: instant?.price_usd, partial: true });
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('holds an order until hold_until, refuses an early claim, and delivers after the claim', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'hold' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    expect(placed.body).toMatchObject({ status: 'hold', hold_until: listing?.tradable_at, claimable: false });
    expect(placed.body.items[0]).toMatchObject({
      status: 'hold',
      tradable_at: listing?.tradable_at,
      steam_trade_offer_id: null,
    });
    const early = await t.call(`/orders/${placed.body.order_id}/claim`, { key, method: 'POST' });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('not_claimable');
    const wait =
      (Date.parse(listing?.tradable_at ?? '') - Date.parse((await t.sandbox('/clock')).body.now)) / 1000;
    await advance(t, Math.ceil(wait) + 61);
    expect((await order(key, placed.body.order_id)).claimable).toBe(true);
    const claimed = await t.call(`/orders/${placed.body.order_id}/claim`, { key, method: 'POST' });
    expect(claimed.status).toBe(200);
    expect(claimed.body.status).toBe('delivering');
    expect(claimed.body.items[0].steam_trade_offer_id).toEqual(expect.any(String));
    await advance(t, 31);
    expect((await order(key, placed.body.order_id)).status).toBe('completed');
  });

  it('releases held orders by itself with autoclaim, sticky on the account', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'hold' });
    const placed = await buy(t, key, { listing_ids: [listing?.id], autoclaim: true });
    expect((await t.call('/balance', { key })).body.autoclaim).toBe(true);
    const wait =
      (Date.parse(listing?.tradable_at ?? '') - Date.parse((await t.sandbox('/clock')).body.now)) / 1000;
    await advance(t, Math.ceil(wait) + 61);
    expect((await order(key, placed.body.order_id)).status).toBe('delivering');
    await advance(t, 31);
    expect((await order(key, placed.body.order_id)).status).toBe('completed');
  });

  it('returns a held order never claimed within 7 days of its hold as expired', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'hold' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    const wait =
      (Date.parse(listing?.tradable_at ?? '') - Date.parse((await t.sandbox('/clock')).body.now)) / 1000;
    await advance(t, Math.ceil(wait) + 61 + 7 * 86_400);
    const expired = await order(key, placed.body.order_id);
    expect(expired.status).toBe('failed');
    expect(expired.items[0].return_reason).toBe('expired');
    expect(expired.refund.amount_usd).toBe(listing?.price_usd);
  });

  it('sends an up_to_12h item when its seller does, and delivers it', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, {
      delivery: 'up_to_12h',
      where: (l) => l.source !== 'external' && l.api_purchasable !== false && (sellerDelayMs(l.id) ?? 0) > 0,
    });
    const delay = sellerDelayMs(listing?.id ?? '') ?? 0;
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    expect(placed.body).toMatchObject({ status: 'pending', delivery: 'up_to_12h', expected_minutes: 720 });
    expect(placed.body.items[0]).toMatchObject({ status: 'delivering', steam_trade_offer_id: null });
    await advance(t, Math.ceil(delay / 1000) - 1);
    expect((await order(key, placed.body.order_id)).status).toBe('pending');
    await advance(t, 1);
    const sent = await order(key, placed.body.order_id);
    expect(sent.status).toBe('delivering');
    expect(sent.items[0].steam_trade_offer_id).toEqual(expect.any(String));
    await advance(t, 31);
    expect((await order(key, placed.body.order_id)).status).toBe('completed');
  });

  it('returns an up_to_12h item whose seller never sends as unavailable after 12 hours', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, {
      delivery: 'up_to_12h',
      where: (l) => l.source !== 'external' && l.api_purchasable !== false && sellerDelayMs(l.id) === null,
    });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    await advance(t, 12 * 3600 - 1);
    expect((await order(key, placed.body.order_id)).status).toBe('pending');
    await advance(t, 1);
    const gaveUp = await order(key, placed.body.order_id);
    expect(gaveUp).toMatchObject({
      status: 'failed',
      refund: { amount_usd: listing?.price_usd, partial: false },
    });
    expect(gaveUp.items[0]).toMatchObject({ status: 'returned', return_reason: 'unavailable' });
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('answers delivery pending and expected_minutes null for a Dota 2 order', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { appId: 570 });
    const placed = await buy(t, key, { listing_ids: [listing?.id], appId: 570 });
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ app_id: 570, delivery: 'pending', expected_minutes: null });
    expect((await t.call(`/orders/${placed.body.order_id}`, { key })).status).toBe(404);
    expect((await t.call(`/orders/${placed.body.order_id}?appId=570`, { key })).status).toBe(200);
  });

  it('pages orders newest first and finds one by custom_id; another account sees 404', async () => {
    const { key } = await t.account();
    const other = await t.account();
    const listings = await listingsFor(t, key, { count: 3 });
    const ids: string[] = [];
    for (const [i, l] of listings.entries())
      ids.push((await buy(t, key, { listing_ids: [l.id], custom_id: `page-${i}` })).body.order_id);
    const first = await t.call('/orders?limit=2', { key });
    expect(first.body.data.map((o: { order_id: string }) => o.order_id)).toEqual([ids[2], ids[1]]);
    const second = await t.call(`/orders?limit=2&cursor=${first.body.meta.next_cursor}`, { key });
    expect(second.body.data.map((o: { order_id: string }) => o.order_id)).toEqual([ids[0]]);
    expect(second.body.meta.next_cursor).toBeNull();
    expect((await t.call('/orders/info?custom_id=page-1', { key })).body.order_id).toBe(ids[1]);
    const byFilter = await t.call('/orders?custom_id=page-1', { key });
    expect(byFilter.body.data.map((o: { order_id: string }) => o.order_id)).toEqual([ids[1]]);
    expect((await t.call('/orders?custom_id=never-sent', { key })).body.data).toEqual([]);
    expect((await t.call(`/orders/${ids[0]}`, { key: other.key })).status).toBe(404);
    expect((await t.call('/orders?status=completed', { key })).body.data).toEqual([]);
  });
});
