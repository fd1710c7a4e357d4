/**
 * Instant Sell orders survive kill -9: a service process is killed with an order pending and again
 * with its credit pending, restarted on the same database each time, and the order still walks to
 * completed with exactly one credit and one settlement in the ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KillableService, killableService } from '../helpers/killable-service.js';
import { createSeller, grant, readyQuote, sellableItems, sellOrder, sellOrderOf } from '../helpers/sell.js';
import { advance, ledgerOf, ledgerProblems } from '../helpers/trading.js';

describe('sell orders through kill -9 of the service', () => {
  let service: KillableService;
  beforeAll(async () => {
    service = await killableService(['--listings', '500', '--churn-paused']);
  });
  afterAll(() => service.cleanUp());

  it('keeps the order, its offer and its credit, and settles it once', async () => {
    const { t } = service;
    await service.start();
    const reader = await t.account({ balance_usd: 0 });
    const [item] = await sellableItems(t, reader.key, 1);
    const seller = await createSeller(t);
    await grant(t, seller, item?.name as string, 2);
    const quote = await readyQuote(t, seller);
    const order = (await sellOrder(t, seller, { quote_id: quote.quote_id, external_id: 'crash-1' })).body;
    expect(order.status).toBe('pending');

    await service.kill();
    await service.start();
    const replay = await sellOrder(t, seller, { quote_id: quote.quote_id, external_id: 'crash-1' });
    expect([replay.status, replay.body.id]).toEqual([200, order.id]);
    // One move walks both steps inside it: the bots' offer goes out (5 s) and is accepted 30 s later.
    await advance(t, 60);
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');

    await service.kill();
    await service.start();
    expect((await sellOrderOf(t, seller, order.id)).status).toBe('received');
    await advance(t, 8 * 86_400 + 600);
    const completed = await sellOrderOf(t, seller, order.id);
    expect(completed).toMatchObject({ status: 'completed', settled_usd: quote.total_usd });
    const rows = await ledgerOf(t, seller.key);
    expect(rows.map((r) => [r.type, r.amount_usd])).toEqual([['sale', quote.total_usd]]);
    expect(await ledgerProblems(t, seller.key)).toEqual([]);
    await service.stop();
  });
});
