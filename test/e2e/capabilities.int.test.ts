/**
 * What a key or its account may not do is refused before the request's input is looked at: the
 * caller is told the capability it lacks, not first asked to fix a body it could never send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ listings: 50 });
});
afterAll(() => t.close());

describe('the CS2-only stream and snapshot', () => {
  it.each(['/listings/stream', '/prices/snapshot.ndjson.gz', '/listings'])(
    'refuse a key limited to Dota 2 on %s with 400 unsupported_game and the games it may use',
    async (path) => {
      const { key } = await t.account({ balance_usd: 100, app_ids: [570] });
      const abort = new AbortController();
      const res = await fetch(`${t.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: abort.signal,
      });
      // An event stream that was (wrongly) opened never ends: read only its head.
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) abort.abort();
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'unsupported_game', supported_app_ids: [570] });
    },
  );
});

describe('capability before input', () => {
  it.each([
    [
      'POST /market/buy without deliver-to-any-trade-URL buying, with a wrong trade URL',
      { trading: true, balance_usd: 100 },
      '/market/buy',
      { listing_ids: ['cs2_x'], trade_url: 'not a url' },
      'external_buy_disabled',
    ],
    [
      'POST /market/buy from a restricted account, with no body fields',
      { trading: true, external_buy: true, restricted: true },
      '/market/buy',
      {},
      'account_restricted',
    ],
    [
      'POST /orders from a restricted account, with an unknown field',
      { trading: true, restricted: true },
      '/orders',
      { listing_ids: ['cs2_x'], foo: 1 },
      'account_restricted',
    ],
    [
      'POST /orders without a linked platform account, with an empty listing_ids',
      { trading: true, steam_id: null },
      '/orders',
      { listing_ids: [] },
      'steam_account_required',
    ],
    [
      'POST /sell/quotes without Instant Sell, with a malformed body',
      {},
      '/sell/quotes',
      { trade_url: 5 },
      'instant_sell_not_enabled',
    ],
    [
      'POST /p2p/listings without a linked platform account, with neither key nor valid item',
      { steam_id: null },
      '/p2p/listings',
      { price_usd: 'x' },
      'steam_account_required',
    ],
  ])('answers %s with its 403', async (_label, account, path, body, code) => {
    const { restricted, ...created } = account as Record<string, unknown>;
    const { key, accountId } = await t.account(created);
    if (restricted) await t.sandbox(`/accounts/${accountId}`, { status: 'restricted' }, 'PATCH');
    const res = await t.call(path, { key, method: 'POST', body });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(code);
  });

  it('answers GET /prices of an unfunded account with 402 before a malformed appId', async () => {
    const { key } = await t.account({ balance_usd: 0 });
    const res = await t.call('/prices?appId=abc', { key });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('insufficient_settled_balance');
  });
});
