/** Helpers of the webhook tests: a service that may deliver to a loopback receiver, registering, waiting, reading. */
import { createHash } from 'node:crypto';
import { vi } from 'vitest';
import { type AdjustableClock, createClock } from '../../src/service/core/clock.js';
import type { ServiceOptions } from '../../src/service/service-options.js';
import { startTestService, type TestResponse, type TestService } from './service.js';
import type { ReceivedRequest, WebhookReceiver } from './webhook-receiver.js';

/** A service clock that moves only when the test moves it, so attempt times are exact. */
export function frozenClock(start = Date.parse('2026-06-01T00:00:00.000Z')): AdjustableClock {
  return createClock({ start, realNow: () => 0 });
}

/** A test service allowed to deliver to `receiver` (loopback allowance, its CA trusted), limits raised. */
export function startWebhookService(
  receiver: WebhookReceiver,
  options: ServiceOptions = {},
): Promise<TestService> {
  return startTestService({
    listings: 2000,
    rateLimits: { read: 1_000_000, orders: 1_000_000 },
    ...options,
    webhooks: { allowLoopback: true, loopbackCa: receiver.ca, ...options.webhooks },
  });
}

/** Registers an endpoint and returns its id and secret. */
export async function register(
  t: TestService,
  key: string,
  url: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const created = await t.call('/webhooks', { key, method: 'POST', body: { url, ...body } });
  if (created.status !== 201) throw new Error(`register: ${created.text}`);
  return { id: created.body.data.id, secret: created.body.data.secret };
}

/** Every delivery of an endpoint, newest first. */
export async function deliveriesOf(t: TestService, key: string, webhookId: string, status?: string) {
  const rows: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (status) query.set('status', status);
    if (cursor) query.set('cursor', cursor);
    const page: TestResponse = await t.call(`/webhooks/${webhookId}/deliveries?${query}`, { key });
    if (page.status !== 200) throw new Error(`deliveries: ${page.text}`);
    rows.push(...page.body.data);
    cursor = page.body.meta.next_cursor;
  } while (cursor !== null);
  return rows;
}

/** The first value of `check` that holds, polled by vitest (a bounded wait on a condition, never a fixed sleep). */
export function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (!value) throw new Error(`condition not met within ${timeoutMs} ms`);
      return value;
    },
    { timeout: timeoutMs, interval: 25 },
  );
}

/** The `data` of an event body exactly as its bytes were sent. */
export function rawData(request: ReceivedRequest): string {
  const text = request.raw.toString('utf8');
  const start = text.indexOf('"data":') + '"data":'.length;
  return text.slice(start, -1);
}

/** The parsed event of a request. */
export function eventOf(request: ReceivedRequest): {
  id: string;
  type: string;
  data: any;
  created_at: string;
} {
  return JSON.parse(request.raw.toString('utf8'));
}

/** Requests that carried events of this order. */
export function eventsOfOrder(receiver: WebhookReceiver, orderId: string): ReceivedRequest[] {
  return receiver.requests.filter((r) => {
    const event = eventOf(r);
    return event.type === 'order.updated' && event.data.order_id === orderId;
  });
}

/** Hex SHA-256. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
