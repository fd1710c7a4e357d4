/**
 * The typed client's webhooks resource against the real service and a real HTTPS receiver on
 * loopback: create (the secret once), list, update, delete, synchronous tests verified with
 * `verifyWebhook`, secret rotation, and deliveries with their status filter, cursor and retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWebhookVerificationError, type MarketClient, verifyWebhook } from '../../src/client/index.js';
import type { TestService } from '../helpers/service.js';
import { buy, listingsFor } from '../helpers/trading.js';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { frozenClock, startWebhookService, until } from '../helpers/webhooks.js';
import { recordingClient } from './recording-client.js';
import { refusalOf } from './scripted-server.js';

let receiver: WebhookReceiver;
let t: TestService;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // A failed attempt's next one is due 10 s later on a clock that moves only when told.
  t = await startWebhookService(receiver, { clock: frozenClock() });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A client of a new account that may trade, and its key. */
async function accountClient(): Promise<{ client: MarketClient; key: string }> {
  const { key } = await t.account({ balance_usd: 1_000, trading: true });
  return { ...recordingClient(t.baseUrl, key), key };
}

/** The last request the receiver got on `path`. */
function lastOn(path: string): ReceivedRequest {
  const found = receiver.requests.filter((r) => r.path === path).at(-1);
  if (!found) throw new Error(`nothing received on ${path}`);
  return found;
}

describe('client.webhooks against the service', () => {
  it('creates an endpoint with its secret once, lists, updates and deletes it', async () => {
    const { client } = await accountClient();
    const created = await client.webhooks.create({ url: `${receiver.origin}/crud`, description: 'bot' });
    expect(created).toMatchObject({ events: ['order.updated'], enabled: true, description: 'bot' });
    expect(created.secret).toMatch(/^svc_whsec_/);
    const [listed, ...others] = await client.webhooks.list();
    expect(others).toEqual([]);
    expect(listed).not.toHaveProperty('secret');
    const { secret: _secret, ...withoutSecret } = created;
    expect(listed).toEqual(withoutSecret);

    const disabled = await client.webhooks.update(created.id, { enabled: false, description: 'paused' });
    expect(disabled).toMatchObject({ id: created.id, enabled: false, description: 'paused' });
    expect((await client.webhooks.list())[0]?.enabled).toBe(false);
    const enabled = await client.webhooks.update(created.id, { enabled: true });
    expect([enabled.enabled, enabled.consecutive_failures]).toEqual([true, 0]);
    expect(await refusalOf(client.webhooks.update(created.id, {}))).toEqual([400, 'invalid_request']);

    expect(await client.webhooks.delete(created.id)).toEqual({ id: created.id, deleted: true });
    expect(await client.webhooks.list()).toEqual([]);
    expect(await refusalOf(client.webhooks.delete(created.id))).toEqual([404, 'not_found']);
    expect(await refusalOf(client.webhooks.create({ url: 'http://127.0.0.1:1/hooks' }))).toEqual([
      400,
      'invalid_webhook_url',
    ]);
  });

  it('tests an endpoint synchronously; after rotate-secret the receiver verifies with the new secret only', async () => {
    const { client } = await accountClient();
    const created = await client.webhooks.create({ url: `${receiver.origin}/rotate` });
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const tested = await client.webhooks.test(created.id);
    expect(tested).toMatchObject({ delivered: true, status_code: 200, error: null });
    const before = lastOn('/rotate');
    const event = verifyWebhook(created.secret, before.headers['x-service-signature'], before.raw);
    expect([event.id, event.type]).toEqual([tested.event_id, 'webhook.test']);

    const rotated = await client.webhooks.rotateSecret(created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^svc_whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const retested = await client.webhooks.test(created.id);
    const after = lastOn('/rotate');
    expect(verifyWebhook(rotated.secret, after.headers['x-service-signature'], after.raw).id).toBe(
      retested.event_id,
    );
    let stale: unknown;
    try {
      verifyWebhook(created.secret, after.headers['x-service-signature'], after.raw);
    } catch (error) {
      stale = error;
    }
    expect(isWebhookVerificationError(stale)).toBe(true);

    receiver.answer(() => ({ status: 503, body: 'down for maintenance' }));
    const failed = await client.webhooks.test(created.id);
    expect(failed).toMatchObject({ delivered: false, status_code: 503 });
    expect(failed.error).not.toBeNull();
    receiver.answer(() => ({ status: 200, body: 'ok' }));
  });

  it('lists deliveries by status and cursor, refuses to retry a delivered one, and re-arms a failing one', async () => {
    const { client, key } = await accountClient();
    const hook = await client.webhooks.create({ url: `${receiver.origin}/deliveries` });
    const [first, second] = await listingsFor(t, key, { delivery: 'up_to_12h', count: 2 });
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    expect((await buy(t, key, { listing_ids: [first?.id] })).status).toBe(201);
    const [delivered] = await until(async () => {
      const page = await client.webhooks.deliveries(hook.id, { status: 'delivered' });
      return page.data.length === 1 && page.data;
    });
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });
    expect(await refusalOf(client.webhooks.retryDelivery(hook.id, delivered?.delivery_id ?? ''))).toEqual([
      409,
      'already_delivered',
    ]);

    receiver.answer((request) =>
      request.path === '/deliveries' ? { status: 500, body: 'broken' } : { status: 200, body: 'ok' },
    );
    expect((await buy(t, key, { listing_ids: [second?.id] })).status).toBe(201);
    const [failing] = await until(async () => {
      const page = await client.webhooks.deliveries(hook.id, { status: 'pending' });
      return page.data.length === 1 && page.data[0]?.response_status === 500 && page.data;
    });
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const rearmed = await client.webhooks.retryDelivery(hook.id, failing?.delivery_id ?? '');
    expect(rearmed).toMatchObject({ delivery_id: failing?.delivery_id, attempts: 0 });
    // The first attempt of the fresh budget is due at once: no clock move needed.
    await until(
      async () => (await client.webhooks.deliveries(hook.id, { status: 'pending' })).data.length === 0,
    );

    const pages = [];
    for await (const page of client.webhooks.deliveryPages(hook.id, { limit: 1 }))
      pages.push(page.data.length);
    expect(pages).toEqual([1, 1]);
    const all = [];
    for await (const row of client.webhooks.allDeliveries(hook.id, { status: 'delivered', limit: 1 }))
      all.push(row.delivery_id);
    expect(all).toEqual([failing?.delivery_id, delivered?.delivery_id]);
    expect(await refusalOf(client.webhooks.retryDelivery(hook.id, 'dlv_unknown'))).toEqual([
      404,
      'not_found',
    ]);
    receiver.answer(() => ({ status: 200, body: 'ok' }));
  });
});
