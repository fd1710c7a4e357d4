/** POST /sandbox/offers/:offer_id and GET /sandbox/trade-urls/:partner, through Fastify with the service's error handling. */
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerPlatformSandboxRoutes } from '../../../src/service/platform/sandbox-routes.js';
import { resolveTradeUrl } from '../../../src/service/platform/trade-urls.js';
import { registerErrorHandling } from '../../../src/shared/error-handler.js';
import { openPlatform, type PlatformFixture, STEAM_ID } from './fixture.js';

let f: PlatformFixture;
let app: FastifyInstance;

beforeEach(async () => {
  f = await openPlatform();
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await app.register(
    async (sandbox) =>
      registerPlatformSandboxRoutes(sandbox, {
        platform: f.platform,
        accounts: {
          steamIdOf: (id) => (id === 'acc_1' ? STEAM_ID : id === 'acc_unlinked' ? null : undefined),
        },
        items: {
          describe: async (name) =>
            name === 'AK-47 | Redline (Field-Tested)'
              ? {
                  appId: 730,
                  marketHashName: name,
                  listingId: 'c0000000001',
                  listingJson: '{"id":"c0000000001"}',
                }
              : undefined,
        },
      }),
    {
      prefix: '/sandbox',
    },
  );
});
afterEach(async () => {
  await app.close();
  await f.close();
});

function act(offerId: string, action: unknown) {
  return app.inject({ method: 'POST', url: `/sandbox/offers/${offerId}`, payload: { action } });
}

describe('POST /sandbox/offers/:offer_id', () => {
  it('answers 200 with the offer view after accepting', async () => {
    const { offerId } = await f.send('ord_1');
    const response = await act(offerId, 'accept');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ offer_id: offerId, order_id: 'ord_1', state: 'accepted' });
    expect(await f.platform.inventoryOf(STEAM_ID)).toHaveLength(2);
  });

  it('answers 404 not_found for an unknown offer', async () => {
    const response = await act('4999999999', 'accept');
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('not_found');
  });

  it('answers 400 invalid_request for a step the offer state refuses', async () => {
    const { offerId } = await f.send('ord_1');
    const response = await act(offerId, 'rollback');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request' });
    expect(response.json().detail).toContain('only an accepted offer can be rolled back');
  });

  it('answers 400 invalid_request for an unknown action', async () => {
    const { offerId } = await f.send('ord_1');
    const response = await act(offerId, 'steal');
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_request');
  });
});

describe('POST and DELETE /sandbox/accounts/:id/inventory', () => {
  const grant = (account: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: `/sandbox/accounts/${account}/inventory`, payload });

  it('grants copies with new asset ids (201) and takes one away', async () => {
    const granted = await grant('acc_1', { market_hash_name: 'AK-47 | Redline (Field-Tested)', count: 2 });
    expect(granted.statusCode).toBe(201);
    const ids: string[] = granted.json().asset_ids;
    expect(ids).toHaveLength(2);
    expect((await f.platform.inventoryOf(STEAM_ID)).map((i) => i.asset_id)).toEqual(ids);
    const removed = await app.inject({
      method: 'DELETE',
      url: `/sandbox/accounts/acc_1/inventory/${ids[0]}`,
    });
    expect(removed.statusCode).toBe(200);
    expect((await f.platform.inventoryOf(STEAM_ID)).map((i) => i.asset_id)).toEqual([ids[1]]);
    const again = await app.inject({ method: 'DELETE', url: `/sandbox/accounts/acc_1/inventory/${ids[0]}` });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('not_found');
  });

  it.each([
    ['an unknown item', 'acc_1', { market_hash_name: 'No Such Item' }, 400, 'invalid_request'],
    [
      'a count of 0',
      'acc_1',
      { market_hash_name: 'AK-47 | Redline (Field-Tested)', count: 0 },
      400,
      'invalid_request',
    ],
    [
      'a count of 1.5',
      'acc_1',
      { market_hash_name: 'AK-47 | Redline (Field-Tested)', count: 1.5 },
      400,
      'invalid_request',
    ],
    [
      'an unknown field',
      'acc_1',
      { market_hash_name: 'AK-47 | Redline (Field-Tested)', colour: 'red' },
      400,
      'invalid_request',
    ],
    [
      'an account without a platform account',
      'acc_unlinked',
      { market_hash_name: 'AK-47 | Redline (Field-Tested)' },
      400,
      'invalid_request',
    ],
    [
      'an unknown account',
      'acc_none',
      { market_hash_name: 'AK-47 | Redline (Field-Tested)' },
      404,
      'not_found',
    ],
  ])('refuses %s and grants nothing', async (_, account, payload, status, code) => {
    const response = await grant(account, payload);
    expect(response.statusCode).toBe(status);
    expect(response.json().code).toBe(code);
    expect(await f.platform.inventoryOf(STEAM_ID)).toEqual([]);
  });
});

describe('GET /sandbox/trade-urls/:partner', () => {
  it('answers the issued trade URL and its steam id', async () => {
    const response = await app.inject({ method: 'GET', url: '/sandbox/trade-urls/123456789' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.steam_id).toBe('76561198083722517');
    expect(resolveTradeUrl(body.trade_url)).toEqual({ steamId: body.steam_id });
  });

  it.each(['0', 'abc', '4294967296', '-5', '1.5'])(
    'answers 400 invalid_param for partner %s',
    async (partner) => {
      const response = await app.inject({ method: 'GET', url: `/sandbox/trade-urls/${partner}` });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('invalid_param');
    },
  );
});
