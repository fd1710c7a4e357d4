/**
 * Webhook deliveries through kill -9 of the service: orders queue their events while the receiver
 * refuses them, the service is killed while the queue drains, and after a restart on the same
 * database every event is delivered, none recorded delivered twice, none that was recorded
 * delivered sent again, and every order's last state is among the events received.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KillableService, killableService } from '../helpers/killable-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { eventOf, rawData, until } from '../helpers/webhooks.js';

const ORDERS = 24;

describe('webhook deliveries through kill -9 of the service', () => {
  let caDir: string;
  let service: KillableService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    caDir = await mkdtemp(join(tmpdir(), 'market-webhook-ca-'));
    receiver = await startWebhookReceiver();
    await writeFile(join(caDir, 'ca.pem'), receiver.ca);
    service = await killableService([
      ...['--listings', '3000', '--churn-paused'],
      ...['--read-limit', '1000000', '--order-limit', '1000000'],
      ...['--webhook-allow-loopback', '--webhook-ca', join(caDir, 'ca.pem')],
    ]);
  });
  afterAll(async () => {
    await service?.cleanUp();
    await receiver?.close();
    await rm(caDir, { recursive: true, force: true });
  });

  async function deliveries(key: string, hookId: string): Promise<Record<string, any>[]> {
    return (await service.t.call(`/webhooks/${hookId}/deliveries?limit=100`, { key })).body.data;
  }

  it('loses no queued delivery and resends none recorded delivered', async () => {
    const { t } = service;
    await service.start();
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    const hook = await t.call('/webhooks', {
      key,
      method: 'POST',
      body: { url: `${receiver.origin}/crash` },
    });
    const hookId: string = hook.body.data.id;
    receiver.answer(() => ({ status: 503 }));
    const listings = await t.call('/listings?limit=200&delivery=up_to_12h&sort=price_asc', { key });
    const ids = listings.body.items
      .filter(
        (l: { source: string; api_purchasable: boolean }) => l.source === 'platform' && l.api_purchasable,
      )
      .slice(0, ORDERS)
      .map((l: { id: string }) => l.id);
    const orders: string[] = [];
    for (const id of ids)
      orders.push(
        (await t.call('/orders', { key, method: 'POST', body: { listing_ids: [id] } })).body.order_id,
      );
    await until(async () => (await deliveries(key, hookId)).every((d) => d.attempts === 1));
    // A walk of the clock sends the retries due inside it before it answers, so the endpoint is
    // paused while the clock makes them due and resumed after: the queue drains slowly from there,
    // and the kill lands while part of it is recorded delivered.
    const enable = (enabled: boolean) =>
      t.call(`/webhooks/${hookId}`, { key, method: 'PATCH', body: { enabled } });
    await enable(false);
    await t.sandbox('/clock', { advance_seconds: 10 });
    receiver.answer(() => ({ status: 200, body: 'ok', delayMs: 40 }));
    await enable(true);
    const deliveredBefore = await until(async () => {
      const done = (await deliveries(key, hookId)).filter((d) => d.status === 'delivered');
      return done.length >= 4 && done;
    });
    await service.kill();
    const killedAt = receiver.requests.length;
    await service.start();
    const final = await until(async () => {
      const rows = await deliveries(key, hookId);
      return rows.length === ORDERS && rows.every((d) => d.status === 'delivered') && rows;
    }, 30_000);
    expect(new Set(final.map((d) => d.event_id)).size).toBe(ORDERS);
    expect(deliveredBefore.length).toBeLessThan(ORDERS);
    const resent = new Set(
      receiver.requests.slice(killedAt).map((r) => String(r.headers['x-service-event-id'])),
    );
    for (const d of deliveredBefore) expect(resent.has(d.event_id)).toBe(false);
    for (const orderId of orders) {
      const now = await t.call(`/orders/${orderId}`, { key });
      const received = receiver.requests.filter((r) => eventOf(r).data.order_id === orderId).map(rawData);
      expect(received).toContain(now.text);
    }
    await service.stop();
  }, 120_000);
});
