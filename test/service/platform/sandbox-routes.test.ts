/** POST /sandbox/offers/:offer_id and GET /sandbox/trade-urls/:partner, through Fastify with the service's error handling. */
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../../src/service/http/error-handler.js';
import { platformApiError } from '../../../src/service/platform/platform-errors.js';
import { registerPlatformSandboxRoutes } from '../../../src/service/platform/sandbox-routes.js';
import { resolveTradeUrl } from '../../../src/service/platform/trade-urls.js';
import { openPlatform, type PlatformFixture, STEAM_ID } from './fixture.js';

let f: PlatformFixture;
let app: FastifyInstance;

beforeEach(async () => {
  f = await openPlatform();
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app, [platformApiError]);
  await app.register(async (sandbox) => registerPlatformSandboxRoutes(sandbox, f.platform), {
    prefix: '/sandbox',
  });
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
