/**
 * Webhooks in a bot's test against startSandbox(): a receiver the sandbox delivers to over HTTPS on
 * 127.0.0.1, registered and verified with the client as a bot's own code does; and a receiver of
 * the bot's own, trusted through `webhookCa`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketClient, verifyWebhook } from '../../src/client/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let own: WebhookReceiver;
let sandbox: Sandbox;
let client: MarketClient;

beforeAll(async () => {
  own = await startWebhookReceiver();
  sandbox = await startSandbox({ listings: 100, seed: 3, webhookCa: own.ca });
  const { apiKey } = await sandbox.createAccount({ balanceUsd: 300, trading: true });
  client = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  await own?.close();
});

describe('sandbox.receiveWebhooks', () => {
  it('receives the signed events of an order, which verifyWebhook accepts with the endpoint secret', async () => {
    const receiver = await sandbox.receiveWebhooks();
    expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const { secret } = await client.webhooks.create({ url: receiver.url });
    const { items } = await client.listings.list({
      appId: 730,
      sort: 'price_asc',
      delivery: 'instant',
      limit: 20,
    });
    const listing = items.find((l) => l.tradable && l.api_purchasable !== false);
    if (!listing) throw new Error('no instant listing to buy');
    const order = await client.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: randomUUID() });
    const clock = await sandbox.advanceClock(31);
    const deliveries = await receiver.received(2);
    // The signatures carry the service clock, which the jump moved ahead of this one.
    const now = Date.parse(clock.now);
    const events = deliveries.map((d) => verifyWebhook(secret, d.signature, d.body, { now }));
    expect(events.map((e) => [e.type, (e.data as { order_id: string; status: string }).status])).toEqual([
      ['order.updated', 'delivering'],
      ['order.updated', 'completed'],
    ]);
    expect(events.every((e) => (e.data as { order_id: string }).order_id === order.order_id)).toBe(true);
    expect(() =>
      verifyWebhook('svc_whsec_other', deliveries[0]?.signature, deliveries[0]?.body ?? ''),
    ).toThrow(/signature/);
  });

  it('answers with the status a test sets, and the service records the refusal', async () => {
    const receiver = await sandbox.receiveWebhooks();
    const hook = await client.webhooks.create({ url: receiver.url });
    receiver.answerWith(500);
    const test = await client.webhooks.test(hook.id);
    expect(test).toMatchObject({ delivered: false, status_code: 500 });
    await receiver.close();
    await expect(receiver.received(2)).rejects.toThrow(/closed/);
  });
});

describe('startSandbox({ webhookCa })', () => {
  it("delivers to a receiver of the bot's own on 127.0.0.1 whose certificate that CA signed", async () => {
    const hook = await client.webhooks.create({ url: `${own.origin}/mine` });
    const test = await client.webhooks.test(hook.id);
    expect(test).toMatchObject({ delivered: true, status_code: 200 });
    expect(own.requests.map((r) => r.path)).toContain('/mine');
  });
});
