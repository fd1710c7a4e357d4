/** POST /market/buy: buying for an end user's trade URL with settled funds, and its refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, ledgerProblems, listingsFor } from '../helpers/trading.js';

describe('POST /market/buy', () => {
  let t: TestService;
  let tradeUrl: string;
  let endUser: string;
  beforeAll(async () => {
    t = await startTestService({ listings: 800 });
    const issued = (await t.sandbox('/trade-urls/123457')).body;
    tradeUrl = issued.trade_url;
    endUser = issued.steam_id;
  });
  afterAll(() => t.close());

  const marketBuy = (key: string, body: Record<string, unknown>) =>
    t.call('/market/buy', { key, method: 'POST', body });

  it('delivers to the trade URL owner from settled funds, idempotently', async () => {
    const { key } = await t.account({ balance_usd: 100, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const body = { listing_ids: [listing?.id], trade_url: tradeUrl, custom_id: 'mb-1' };
    const placed = await marketBuy(key, body);
    expect(placed.status).toBe(201);
    expect(placed.body).toMatchObject({ steam_id: endUser, status: 'delivering', app_id: 730 });
    const replay = await marketBuy(key, body);
    expect(replay.text).toBe(placed.text);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    // The endpoint does not read appId: any value is ignored, and the body is still the same one.
    const withAppId = await marketBuy(key, { ...body, appId: 570 });
    expect([withAppId.status, withAppId.text]).toEqual([201, placed.text]);
    await advance(t, 31);
    expect((await t.call(`/orders/${placed.body.order_id}`, { key })).body.status).toBe('completed');
    const balance = (await t.call('/balance', { key })).body;
    expect(balance.settled_usd).toBeCloseTo(100 - (listing?.price_usd ?? 0), 2);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('answers 403 external_buy_disabled unless the account allows it', async () => {
    const { key } = await t.account({ balance_usd: 100, trading: true });
    const [listing] = await listingsFor(t, key);
    const response = await marketBuy(key, { listing_ids: [listing?.id], trade_url: tradeUrl });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('external_buy_disabled');
  });

  it('answers 402 insufficient_settled_balance when the balance is still in the reversal window', async () => {
    const { key } = await t.account({ balance_usd: 100, settled_usd: 0, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    const response = await marketBuy(key, { listing_ids: [listing?.id], trade_url: tradeUrl });
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({
      code: 'insufficient_settled_balance',
      balance_usd: 100,
      settled_usd: 0,
      required_usd: listing?.price_usd,
    });
  });

  it('buys once the reversal window (72 hours) has settled the deposit', async () => {
    const { key } = await t.account({ balance_usd: 100, settled_usd: 0, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    await advance(t, 72 * 3600 - 10);
    expect((await t.call('/balance', { key })).body).toMatchObject({ settled_usd: 0, pending_usd: 100 });
    await advance(t, 10);
    expect((await t.call('/balance', { key })).body).toMatchObject({ settled_usd: 100, pending_usd: 0 });
    const response = await marketBuy(key, { listing_ids: [listing?.id], trade_url: tradeUrl });
    expect(response.status).toBe(201);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it.each([
    ['not a url', 'malformed'],
    ['https://steamcommunity.com/tradeoffer/new/?partner=123457&token=wrongtok', 'wrong token'],
    ['https://steamcommunity.com/tradeoffer/new/?partner=123450&token=abcdefgh', 'private inventory'],
    ['https://evil.example/tradeoffer/new/?partner=123457&token=abcdefgh', 'other host'],
  ])('answers 400 invalid_trade_url for %s (%s)', async (url) => {
    const { key } = await t.account({ balance_usd: 100, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    const response = await marketBuy(key, { listing_ids: [listing?.id], trade_url: url });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_trade_url');
  });

  it('refuses a private trade URL even with its issued token', async () => {
    const { key } = await t.account({ balance_usd: 100, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    const privateUrl = (await t.sandbox('/trade-urls/123450')).body.trade_url;
    const response = await marketBuy(key, { listing_ids: [listing?.id], trade_url: privateUrl });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_trade_url');
  });
});
