import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketClient } from '../../src/client/index.js';
import { ApiError, isApiError } from '../../src/contract/api-error.js';
import { APP_IDS } from '../../src/contract/common.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ listings: 60, rateLimits: { read: 1_000_000 } });
});
afterAll(() => t.close());

/** The ApiError a call rejects with. */
async function failure(call: (client: MarketClient) => Promise<unknown>, apiKey?: string): Promise<ApiError> {
  const client = new MarketClient({ baseUrl: t.baseUrl, apiKey, sleep: async () => {} });
  try {
    await call(client);
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  } finally {
    await client.close();
  }
  throw new Error('the call succeeded');
}

describe('MarketClient errors from the service', () => {
  it('throws 401 invalid_api_key for an unknown key', async () => {
    const error = await failure((c) => c.account.balance(), 'svc_pub_not_a_real_key');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect(error.detail).toMatch(/unknown or revoked/);
  });

  it('throws 401 missing_api_key without a key', async () => {
    const error = await failure((c) => c.listings.list());
    expect(error).toMatchObject({ code: 'missing_api_key', status: 401 });
  });

  it('throws 400 unsupported_game with supported_app_ids', async () => {
    const { key } = await t.account({ balance_usd: 10, app_ids: [APP_IDS.cs2] });
    const error = await failure((c) => c.listings.list({ appId: APP_IDS.dota2 }), key);
    expect(error).toMatchObject({ code: 'unsupported_game', status: 400 });
    expect(error.extra).toEqual({ supported_app_ids: [APP_IDS.cs2] });
  });

  it('throws 402 insufficient_settled_balance from /prices for an unfunded account', async () => {
    const { key } = await t.account({ balance_usd: 0 });
    const error = await failure((c) => c.prices.list(), key);
    expect(error).toMatchObject({ code: 'insufficient_settled_balance', status: 402 });
    expect(error.extra).toMatchObject({ balance_usd: 0, settled_usd: 0, required_usd: expect.any(Number) });
    expect(error.toBody()).toMatchObject({ code: 'insufficient_settled_balance', balance_usd: 0 });
  });

  it('throws 400 invalid_param for a CS2-only filter with another game', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const error = await failure((c) => c.listings.list({ appId: APP_IDS.rust, wear: 'Factory New' }), key);
    expect(error).toMatchObject({ code: 'invalid_param', status: 400 });
    expect(error.detail).toMatch(/wear is CS2-only/);
  });

  it('throws 402 from the snapshot before funding', async () => {
    const { key } = await t.account({ balance_usd: 0 });
    const error = await failure((c) => c.prices.snapshot(), key);
    expect(error).toMatchObject({ code: 'insufficient_settled_balance', status: 402 });
  });
});
