/** POST /orders and /market/buy refusals: each trading error of the specification, with its extra fields, and nothing charged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { buy, ledgerOf, listingsFor } from '../helpers/trading.js';

describe('POST /orders refusals', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 800 });
  });
  afterAll(() => t.close());

  it('answers 403 trading_not_enabled for a read key', async () => {
    const { key } = await t.account({ balance_usd: 100, trading: false });
    const [listing] = await listingsFor(t, key);
    const response = await buy(t, key, { listing_ids: [listing?.id] });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('trading_not_enabled');
  });

  it('answers 400 invalid_request naming an unknown body field, and buys nothing', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const response = await buy(t, key, { listing_ids: [listing?.id], max_price: 1 });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect(response.body.detail).toContain('max_price');
    expect(
      (
        await t.call(`/listings?name=${encodeURIComponent(listing?.market_hash_name ?? '')}`, { key })
      ).body.items.map((l: { id: string }) => l.id),
    ).toContain(listing?.id);
  });

  it('answers 400 invalid_request when the Idempotency-Key header and custom_id differ', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const response = await buy(
      t,
      key,
      { listing_ids: [listing?.id], custom_id: 'a-1' },
      { 'idempotency-key': 'b-2' },
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
  });

  it('answers 409 price_moved with the live total when max_price_usd is below it', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const price = listing?.price_usd ?? 0;
    const response = await buy(t, key, { listing_ids: [listing?.id], max_price_usd: price - 0.01 });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'price_moved', current_total_usd: price });
  });

  it('answers 409 item_unavailable with the ids that are not live', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const response = await buy(t, key, { listing_ids: [listing?.id, 'cs2_nope'] });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'item_unavailable', unavailable_ids: ['cs2_nope'] });
  });

  it('answers 402 insufficient_balance with the balance, the requirement and the settled part', async () => {
    const { key } = await t.account({ balance_usd: 0.01, trading: true });
    const [listing] = await listingsFor(t, key);
    const response = await buy(t, key, { listing_ids: [listing?.id] });
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({
      code: 'insufficient_balance',
      balance_usd: 0.01,
      required_usd: listing?.price_usd,
      settled_usd: 0.01,
    });
    expect(await ledgerOf(t, key)).toHaveLength(1);
  });

  it.each([
    [{ steam_id: null }, 403, 'steam_account_required'],
    [{ status: 'restricted' }, 403, 'account_restricted'],
    [{ kyc_threshold_usd: 0.02 }, 403, 'kyc_required'],
  ])('answers after PATCH %j: %i %s', async (patch, status, code) => {
    const { key, accountId } = await t.account();
    expect((await t.sandbox(`/accounts/${accountId}`, patch, 'PATCH')).status).toBe(200);
    const [listing] = await listingsFor(t, key);
    const response = await buy(t, key, { listing_ids: [listing?.id] });
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });

  it('answers 400 unsupported_game with the games that can be bought', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { appId: 252490 });
    const response = await buy(t, key, { listing_ids: [listing?.id], appId: 252490 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'unsupported_game', supported_app_ids: [730, 570] });
  });

  it('answers 409 item_unavailable for a listing id of another game', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { appId: 570 });
    const response = await buy(t, key, { listing_ids: [listing?.id] });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('item_unavailable');
  });

  it('answers 409 pending_trades_limit when the recipient ignores too many offers', async () => {
    const { key, accountId } = await t.account({ balance_usd: 10_000, trading: true });
    await t.sandbox(`/accounts/${accountId}`, { offers: 'ignore' }, 'PATCH');
    const listings = await listingsFor(t, key, { delivery: 'instant', count: 11 });
    for (const listing of listings.slice(0, 10))
      expect((await buy(t, key, { listing_ids: [listing.id] })).status).toBe(201);
    const response = await buy(t, key, { listing_ids: [listings[10]?.id] });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'pending_trades_limit', limit: 10 });
  });

  it('holds the pending-offer limit for orders that commit together', async () => {
    const { key, accountId } = await t.account({ balance_usd: 10_000, trading: true });
    await t.sandbox(`/accounts/${accountId}`, { offers: 'ignore' }, 'PATCH');
    const listings = await listingsFor(t, key, { delivery: 'instant', count: 15 });
    const results = await Promise.all(listings.map((l) => buy(t, key, { listing_ids: [l.id] })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.body.code)).toEqual(refused.map(() => 'pending_trades_limit'));
  });

  it('answers 400 unsupported_item for a listing the API cannot buy', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { where: (l) => l.api_purchasable === false });
    const response = await buy(t, key, { listing_ids: [listing?.id] });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'unsupported_item', unsupported_ids: [listing?.id] });
  });

  it('answers 400 cannot_mix_sources and one_external_per_order, and buys one external item alone', async () => {
    const { key } = await t.account({ balance_usd: 10_000, trading: true });
    const [a, b] = await listingsFor(t, key, { count: 2, where: (l) => l.source === 'external' });
    const [platform] = await listingsFor(t, key);
    const mixed = await buy(t, key, { listing_ids: [a?.id, platform?.id] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.code).toBe('cannot_mix_sources');
    const two = await buy(t, key, { listing_ids: [a?.id, b?.id] });
    expect(two.status).toBe(400);
    expect(two.body.code).toBe('one_external_per_order');
    expect((await buy(t, key, { listing_ids: [a?.id] })).status).toBe(201);
  });

  it('answers 501 not_implemented for withdrawals', async () => {
    const { key } = await t.account();
    const response = await t.call('/withdrawals', { key, method: 'POST', body: { amount_usd: 1 } });
    expect(response.status).toBe(501);
    expect(response.body.code).toBe('not_implemented');
  });
});

describe('sandbox faults', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 500 });
  });
  afterAll(() => t.close());

  it.each([
    [{ market_unavailable: true }, { market_unavailable: false }, 503, 'market_unavailable'],
    [{ price_updating: true }, { price_updating: false }, 409, 'price_updating'],
    [{ concurrent_update_next: 1 }, {}, 409, 'concurrent_update'],
    [{ order_failed_next: 1 }, {}, 500, 'order_failed'],
  ])('%j refuses with %i %s, charges nothing, and leaves the key free', async (arm, disarm, status, code) => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const body = { listing_ids: [listing?.id], custom_id: `fault-${code}` };
    await t.sandbox('/faults', arm);
    const refused = await buy(t, key, body);
    expect(refused.status).toBe(status);
    expect(refused.body.code).toBe(code);
    if (code === 'concurrent_update') expect(refused.headers.get('retry-after')).toBe('1');
    expect(await ledgerOf(t, key)).toHaveLength(1);
    expect((await t.call(`/orders/info?custom_id=fault-${code}`, { key })).status).toBe(404);
    await t.sandbox('/faults', disarm);
    const retried = await buy(t, key, body);
    expect(retried.status).toBe(201);
    expect(await ledgerOf(t, key)).toHaveLength(2);
  });

  it('answers 504 upstream_timeout, decides the order anyway, and replays it for the same key', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    await t.sandbox('/faults', { upstream_timeout_next: 1 });
    const body = { listing_ids: [listing?.id], custom_id: 'timeout-1' };
    const first = await buy(t, key, body);
    expect(first.status).toBe(504);
    expect(first.body.code).toBe('upstream_timeout');
    const found = await t.call('/orders/info?custom_id=timeout-1', { key });
    expect(found.status).toBe(200);
    const replay = await buy(t, key, body);
    expect(replay.status).toBe(201);
    expect(replay.body.order_id).toBe(found.body.order_id);
    expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
  });
});
