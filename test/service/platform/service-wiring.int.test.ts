/** The platform inside a running service: the sandbox clock fires offer steps, and the sandbox routes answer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { itemsOf, STEAM_ID } from './fixture.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('platform in the service', () => {
  it('accepts an offer when POST /sandbox/clock moves past its answer, and rolls it back on request', async () => {
    const { platform, units } = t.service.context;
    const { offerId } = await units.run((uow) =>
      platform.sendOffer(uow, { orderId: 'ord_e2e', steamId: STEAM_ID, items: itemsOf('ord_e2e', 1) }),
    );
    expect((await t.sandbox('/clock', { advance_seconds: 31 })).status).toBe(200);
    expect((await platform.offersOf(STEAM_ID))[0]?.state).toBe('accepted');
    expect(await platform.inventoryOf(STEAM_ID)).toHaveLength(1);
    const rolledBack = await t.sandbox(`/offers/${offerId}`, { action: 'rollback' });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.state).toBe('rolled_back');
    expect((await t.sandbox(`/offers/${offerId}`, { action: 'accept' })).status).toBe(400);
    expect((await t.sandbox('/offers/4999999999', { action: 'accept' })).status).toBe(404);
  });

  it('issues trade URLs', async () => {
    const response = await t.sandbox('/trade-urls/42');
    expect(response.status).toBe(200);
    expect(response.body.steam_id).toBe('76561197960265770');
    expect(t.service.context.platform.resolveTradeUrl(response.body.trade_url)).toEqual({
      steamId: '76561197960265770',
    });
  });
});
