/** max_price_usd on POST /orders and /market/buy: a cap is whole cents, never rounded into a charge above it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { cents, listingsFor } from '../helpers/trading.js';

let t: TestService;
let tradeUrl: string;
beforeAll(async () => {
  t = await startTestService({ listings: 400 });
  tradeUrl = (await t.sandbox('/trade-urls/123457')).body.trade_url;
});
afterAll(() => t.close());

describe.each([
  ['/orders', {}],
  ['/market/buy', { trade_url: '' }],
])('max_price_usd with a fraction of a cent on POST %s', (path, extra) => {
  it.each([
    ['half a cent under the price', (price: number) => (price - 0.5) / 100],
    ['a cent less 0.0049 under the price', (price: number) => (price - 1) / 100 + 0.0049],
  ])('refuses a cap %s with 400 naming max_price_usd, and charges nothing', async (_label, capOf) => {
    const { key } = await t.account({ balance_usd: 100, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    const cap = capOf(cents(listing?.price_usd ?? 0));
    const body = { listing_ids: [listing?.id], max_price_usd: cap, ...extra };
    if ('trade_url' in body) body.trade_url = tradeUrl;
    const response = await t.call(path, { key, method: 'POST', body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect(response.body.detail).toContain('max_price_usd');
    expect((await t.call('/balance', { key })).body.balance_usd).toBe(100);
  });

  it('buys at a cap of exactly the price in whole cents', async () => {
    const { key } = await t.account({ balance_usd: 100, trading: true, external_buy: true });
    const [listing] = await listingsFor(t, key);
    const body = { listing_ids: [listing?.id], max_price_usd: listing?.price_usd, ...extra };
    if ('trade_url' in body) body.trade_url = tradeUrl;
    const response = await t.call(path, { key, method: 'POST', body });
    expect(response.status).toBe(201);
    expect(response.body.charged_total_usd).toBe(listing?.price_usd);
  });
});
