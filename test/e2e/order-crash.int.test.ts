/**
 * Orders survive kill -9: a service process is killed while orders pour in, restarted on the same
 * database, and every charge has its order, every balance its ledger, every bought listing is out
 * of the catalogue, and every key either replays its order or buys exactly once on a resend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KillableService, killableService } from '../helpers/killable-service.js';
import type { TestResponse } from '../helpers/service.js';
import { ledgerOf, ledgerProblems } from '../helpers/trading.js';

const KILLS = 3;

describe('orders through kill -9 of the service', () => {
  let service: KillableService;
  beforeAll(async () => {
    service = await killableService([
      '--listings',
      '3000',
      '--churn-paused',
      '--order-limit',
      '100000',
      '--read-limit',
      '100000',
    ]);
  });
  afterAll(() => service.cleanUp());

  it('loses nothing and charges nothing twice', async () => {
    const { t } = service;
    await service.start();
    const keys: string[] = [];
    for (let i = 0; i < 3; i++) keys.push((await t.account({ balance_usd: 100_000, trading: true })).key);
    const sent: { key: string; customId: string; listingId: string }[] = [];
    for (let round = 0; round < KILLS; round++) {
      const page = await t.call('/listings?limit=200&sort=price_asc', { key: keys[0] as string });
      const ids: string[] = page.body.items
        .filter(
          (l: { source: string; api_purchasable: boolean }) => l.source === 'platform' && l.api_purchasable,
        )
        .map((l: { id: string }) => l.id);
      let next = 0;
      const pour = Promise.all(
        keys.map(async (key, k) => {
          for (let n = 0; next < ids.length; n++) {
            const order = { key, customId: `crash-${round}-${k}-${n}`, listingId: ids[next++] as string };
            sent.push(order);
            await t
              .call('/orders', {
                key,
                method: 'POST',
                body: { listing_ids: [order.listingId], custom_id: order.customId },
              })
              .catch(() => undefined);
          }
        }),
      );
      // The kill moment stays real time on purpose: it must land while orders are in flight.
      await new Promise((resolve) => setTimeout(resolve, 200 + 150 * round));
      await service.kill();
      await pour;
      await service.start();
    }
    for (const key of keys) expect(await ledgerProblems(t, key)).toEqual([]);
    const live = new Set<string>();
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page: TestResponse = await t.call(`/listings?limit=200${cursor ? `&cursor=${cursor}` : ''}`, {
        key: keys[0] as string,
      });
      for (const l of page.body.items) live.add(l.id);
      cursor = page.body.next_cursor;
    }
    let bought = 0;
    for (const order of sent) {
      const found = await t.call(`/orders/info?custom_id=${order.customId}`, { key: order.key });
      if (found.status === 404) continue;
      bought += 1;
      expect(live.has(order.listingId)).toBe(false);
      const resent = await t.call('/orders', {
        key: order.key,
        method: 'POST',
        body: { listing_ids: [order.listingId], custom_id: order.customId },
      });
      expect(resent.body.order_id).toBe(found.body.order_id);
    }
    expect(bought).toBeGreaterThan(0);
    for (const key of keys) {
      const purchases = (await ledgerOf(t, key)).filter((r) => r.type === 'purchase');
      const orders = new Set(purchases.map((r) => r.order_id));
      expect(orders.size).toBe(purchases.length);
      for (const orderId of orders) expect((await t.call(`/orders/${orderId}`, { key })).status).toBe(200);
    }
    await service.stop();
  });
});
