/**
 * Webhooks over loopback against a real HTTPS receiver: every endpoint and its errors, signed
 * order.updated events whose data is GET /orders/{id} byte for byte, the signature checked by an
 * existing library (stripe's verifier: the same t=…,v1=… scheme) and by the typed client,
 * synchronous tests, rotation, and redirects that are never followed.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/index.js';
import type { TestService } from '../helpers/service.js';
import { advance, buy, listingsFor } from '../helpers/trading.js';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import {
  deliveriesOf,
  eventOf,
  eventsOfOrder,
  frozenClock,
  rawData,
  register,
  startWebhookService,
  until,
} from '../helpers/webhooks.js';

describe('webhooks', () => {
  let receiver: WebhookReceiver;
  let t: TestService;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    const clock = frozenClock();
    receiver = await startWebhookReceiver(clock);
    t = await startWebhookService(receiver, { clock });
    key = (await t.account({ balance_usd: 10_000, trading: true })).key;
    otherKey = (await t.account({ balance_usd: 10, trading: true })).key;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('registers an endpoint with its secret once and lists it with its health', async () => {
    const created = await t.call('/webhooks', {
      key,
      method: 'POST',
      body: { url: `${receiver.origin}/list`, description: 'listing test' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      url: `${receiver.origin}/list`,
      events: ['order.updated'],
      enabled: true,
      description: 'listing test',
      last_success_at: null,
      last_failure_at: null,
      last_error: null,
      consecutive_failures: 0,
    });
    expect(created.body.data.secret).toMatch(/^svc_whsec_.{40,}$/);
    const listed = await t.call('/webhooks', { key });
    const row = listed.body.data.find((e: { id: string }) => e.id === created.body.data.id);
    expect(row).toBeDefined();
    expect(row).not.toHaveProperty('secret');
    expect((await t.call('/webhooks', { key: otherKey })).body.data).toEqual([]);
    expect((await t.call(`/webhooks/${created.body.data.id}`, { key, method: 'DELETE' })).body).toEqual({
      id: created.body.data.id,
      deleted: true,
    });
  });

  it.each([
    [{ url: `https://127.0.0.1:1/x`, events: ['order.created'] }, 'invalid_request'],
    [{ url: `https://127.0.0.1:1/x`, events: [] }, 'invalid_request'],
    [{ description: 'no url' }, 'invalid_request'],
    [{ url: 'http://127.0.0.1:1/x' }, 'invalid_webhook_url'],
    [{ url: 'https://user:pw@127.0.0.1:1/x' }, 'invalid_webhook_url'],
    [{ url: '/relative/path' }, 'invalid_webhook_url'],
  ])('refuses %j with 400 %s and registers nothing', async (body, code) => {
    const refused = await t.call('/webhooks', { key: otherKey, method: 'POST', body });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(code);
    expect((await t.call('/webhooks', { key: otherKey })).body.data).toEqual([]);
  });

  it('refuses a sixth endpoint with 409 too_many_webhooks', async () => {
    const { key: full } = await t.account({ balance_usd: 0 });
    for (let i = 0; i < 5; i++) await register(t, full, `${receiver.origin}/full-${i}`);
    const sixth = await t.call('/webhooks', {
      key: full,
      method: 'POST',
      body: { url: `${receiver.origin}/6` },
    });
    expect(sixth.status).toBe(409);
    expect(sixth.body.code).toBe('too_many_webhooks');
    expect((await t.call('/webhooks', { key: full })).body.data).toHaveLength(5);
  });

  it("answers 404 not_found for another account's endpoint and delivery", async () => {
    const mine = await register(t, key, `${receiver.origin}/mine`);
    const calls: [string, string, unknown?][] = [
      ['PATCH', `/webhooks/${mine.id}`, { description: 'taken' }],
      ['DELETE', `/webhooks/${mine.id}`],
      ['POST', `/webhooks/${mine.id}/test`],
      ['POST', `/webhooks/${mine.id}/rotate-secret`],
      ['GET', `/webhooks/${mine.id}/deliveries`],
      ['POST', `/webhooks/${mine.id}/deliveries/dlv_unknown/retry`],
    ];
    for (const [method, path, body] of calls) {
      const answer = await t.call(path, { key: otherKey, method, ...(body ? { body } : {}) });
      expect([method, path, answer.status, answer.body.code]).toEqual([method, path, 404, 'not_found']);
    }
    const unknown = await t.call(`/webhooks/${mine.id}/deliveries/dlv_unknown/retry`, {
      key,
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
    expect(
      (await t.call('/webhooks', { key })).body.data.find((e: any) => e.id === mine.id).description,
    ).toBe('');
    await t.call(`/webhooks/${mine.id}`, { key, method: 'DELETE' });
  });

  it('sends one signed order.updated per order state, data byte-identical to GET /orders/{id}', async () => {
    const hook = await register(t, key, `${receiver.origin}/orders`);
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const placed = await buy(t, key, { listing_ids: [listing?.id] });
    expect(placed.status).toBe(201);
    const orderId: string = placed.body.order_id;
    const [first] = await until(
      () => eventsOfOrder(receiver, orderId).length === 1 && eventsOfOrder(receiver, orderId),
    );
    const atPlacement = await t.call(`/orders/${orderId}`, { key });
    expect(rawData(first as ReceivedRequest)).toBe(atPlacement.text);
    await advance(t, 31);
    const events = await until(
      () => eventsOfOrder(receiver, orderId).length === 2 && eventsOfOrder(receiver, orderId),
    );
    const completed = await t.call(`/orders/${orderId}`, { key });
    expect(completed.body.status).toBe('completed');
    expect(rawData(events[1] as ReceivedRequest)).toBe(completed.text);
    const ids = events.map((r) => eventOf(r).id);
    expect(new Set(ids).size).toBe(2);
    for (const request of events) {
      const header = String(request.headers['x-service-signature']);
      const t0 = /^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1];
      expect(t0).toBe(request.headers['x-service-delivery-timestamp']);
      expect(request.headers['x-service-event-id']).toBe(eventOf(request).id);
      // An existing library's verifier with the same scheme accepts it as it stands.
      expect(
        Stripe.webhooks.signature?.verifyHeader(request.raw.toString('utf8'), header, hook.secret, 300),
      ).toBe(true);
      expect(verifyWebhook(hook.secret, header, request.raw).id).toBe(eventOf(request).id);
    }
    // The service clock ran 31 s ahead; t stays the real time of sending.
    expect(
      Math.abs(
        Number((events[1] as ReceivedRequest).headers['x-service-delivery-timestamp']) - Date.now() / 1000,
      ),
    ).toBeLessThan(60);
    const delivered = await until(async () => {
      const rows = await deliveriesOf(t, key, hook.id, 'delivered');
      return rows.length === 2 && rows;
    });
    expect(delivered.map((d) => d.event_id).sort()).toEqual([...ids].sort());
    expect(delivered[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      response_status: 200,
      response_body: 'ok',
    });
    // Retrying a delivered one is refused; the queue keeps one row per event.
    const again = await t.call(`/webhooks/${hook.id}/deliveries/${delivered[0]?.delivery_id}/retry`, {
      key,
      method: 'POST',
    });
    expect([again.status, again.body.code]).toEqual([409, 'already_delivered']);
    const health = (await t.call('/webhooks', { key })).body.data.find((e: any) => e.id === hook.id);
    expect(health.last_success_at).not.toBeNull();
    await t.call(`/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('pages deliveries newest first with a cursor and filters them by status', async () => {
    const { key: pager } = await t.account({ balance_usd: 10_000, trading: true });
    const hook = await register(t, pager, `${receiver.origin}/pages`);
    const listings = await listingsFor(t, pager, { delivery: 'up_to_12h', count: 3 });
    for (const listing of listings)
      expect((await buy(t, pager, { listing_ids: [listing.id] })).status).toBe(201);
    await until(async () => (await deliveriesOf(t, pager, hook.id, 'delivered')).length === 3);
    const first = await t.call(`/webhooks/${hook.id}/deliveries?limit=2`, { key: pager });
    const second = await t.call(
      `/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.body.meta.next_cursor}`,
      {
        key: pager,
      },
    );
    expect(first.body.data).toHaveLength(2);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.next_cursor).toBeNull();
    expect((await deliveriesOf(t, pager, hook.id, 'pending')).length).toBe(0);
    const bad = await t.call(`/webhooks/${hook.id}/deliveries?status=lost`, { key: pager });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_param']);
  });

  it('tests an endpoint synchronously: the real status and error text, or the connection error', async () => {
    const hook = await register(t, key, `${receiver.origin}/test`);
    receiver.answer(() => ({ status: 418, body: 'short and stout' }));
    const refused = await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(refused.body).toMatchObject({
      delivered: false,
      status_code: 418,
      error: 'receiver answered 418: short and stout',
      response_body: 'short and stout',
    });
    // The receiver's text is bounded: its first 1 KiB.
    receiver.answer(() => ({ status: 500, body: `${'x'.repeat(1024)}tail` }));
    const long = await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(long.body.response_body).toBe('x'.repeat(1024));
    expect(long.body.error).toBe(`receiver answered 500: ${'x'.repeat(1024)}`);
    receiver.answer(() => ({ status: 204 }));
    const ok = await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(ok.body).toMatchObject({ delivered: true, status_code: 204, error: null });
    const sent = receiver.requests.at(-1) as ReceivedRequest;
    expect(eventOf(sent)).toMatchObject({
      id: ok.body.event_id,
      type: 'webhook.test',
      data: { webhook_id: hook.id },
    });
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const closed = await startWebhookReceiver();
    const port = closed.port;
    await closed.close();
    const dead = await register(t, key, `https://127.0.0.1:${port}/gone`);
    const failed = await t.call(`/webhooks/${dead.id}/test`, { key, method: 'POST' });
    expect(failed.body).toMatchObject({ delivered: false, status_code: null });
    expect(failed.body.error).toContain('ECONNREFUSED');
    await t.call(`/webhooks/${dead.id}`, { key, method: 'DELETE' });
    await t.call(`/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('rotates the secret: later requests verify with the new one only', async () => {
    const hook = await register(t, key, `${receiver.origin}/rotate`);
    const rotated = await t.call(`/webhooks/${hook.id}/rotate-secret`, { key, method: 'POST' });
    expect(rotated.status).toBe(200);
    const secret: string = rotated.body.data.secret;
    expect(secret).toMatch(/^svc_whsec_/);
    expect(secret).not.toBe(hook.secret);
    await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    const sent = receiver.requests.at(-1) as ReceivedRequest;
    const header = String(sent.headers['x-service-signature']);
    expect(verifyWebhook(secret, header, sent.raw).type).toBe('webhook.test');
    expect(() => verifyWebhook(hook.secret, header, sent.raw)).toThrow(/no v1 signature matches/);
    await t.call(`/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('never follows a redirect: a 302 is a failure and its target is never asked', async () => {
    const hook = await register(t, key, `${receiver.origin}/moved`);
    receiver.answer((r) =>
      r.path === '/moved'
        ? { status: 302, headers: { location: `${receiver.origin}/target` } }
        : { status: 200 },
    );
    const answer = await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(answer.body).toMatchObject({ delivered: false, status_code: 302 });
    expect(answer.body.error).toBe(`redirect 302 to ${receiver.origin}/target not followed`);
    expect(receiver.requests.filter((r) => r.path === '/target')).toHaveLength(0);
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    await t.call(`/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('queues the events of a disabled endpoint and sends them in order once it is enabled again', async () => {
    const { key: pauser } = await t.account({ balance_usd: 10_000, trading: true });
    const hook = await register(t, pauser, `${receiver.origin}/paused`);
    const off = await t.call(`/webhooks/${hook.id}`, {
      key: pauser,
      method: 'PATCH',
      body: { enabled: false },
    });
    expect(off.body.data.enabled).toBe(false);
    const [listing] = await listingsFor(t, pauser, { delivery: 'instant' });
    const placed = await buy(t, pauser, { listing_ids: [listing?.id] });
    const orderId: string = placed.body.order_id;
    const atPlacement = (await t.call(`/orders/${orderId}`, { key: pauser })).text;
    await advance(t, 31);
    const completed = await t.call(`/orders/${orderId}`, { key: pauser });
    expect(completed.body.status).toBe('completed');
    const queued = await deliveriesOf(t, pauser, hook.id);
    expect(queued.map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    await advance(t, 3600);
    expect(eventsOfOrder(receiver, orderId)).toEqual([]);
    const on = await t.call(`/webhooks/${hook.id}`, {
      key: pauser,
      method: 'PATCH',
      body: { enabled: true },
    });
    expect(on.body.data.enabled).toBe(true);
    const sent = await until(
      () => eventsOfOrder(receiver, orderId).length === 2 && eventsOfOrder(receiver, orderId),
    );
    expect(sent.map(rawData)).toEqual([atPlacement, completed.text]);
    await until(async () => (await deliveriesOf(t, pauser, hook.id, 'delivered')).length === 2);
  });

  it('changes url, events, description and enabled with PATCH; a disabled endpoint is sent nothing', async () => {
    const { key: patcher } = await t.account({ balance_usd: 10_000, trading: true });
    const hook = await register(t, patcher, `${receiver.origin}/before`);
    const patched = await t.call(`/webhooks/${hook.id}`, {
      key: patcher,
      method: 'PATCH',
      body: {
        url: `${receiver.origin}/after`,
        description: 'renamed',
        enabled: false,
        events: ['order.updated'],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      url: `${receiver.origin}/after`,
      description: 'renamed',
      enabled: false,
    });
    const [listing] = await listingsFor(t, patcher, { delivery: 'up_to_12h' });
    await buy(t, patcher, { listing_ids: [listing?.id] });
    const [kept] = await deliveriesOf(t, patcher, hook.id);
    expect(kept).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.requests.filter((r) => r.path === '/after')).toEqual([]);
    for (const body of [{}, { events: ['webhook.test'] }, { enabled: 'yes' }]) {
      const refused = await t.call(`/webhooks/${hook.id}`, { key: patcher, method: 'PATCH', body });
      expect([refused.status, refused.body.code]).toEqual([400, 'invalid_request']);
    }
    const badUrl = await t.call(`/webhooks/${hook.id}`, {
      key: patcher,
      method: 'PATCH',
      body: { url: 'http://x' },
    });
    expect([badUrl.status, badUrl.body.code]).toEqual([400, 'invalid_webhook_url']);
  });
});
