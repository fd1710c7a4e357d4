/**
 * Webhook deliveries through kill -9 of the service: orders queue their events while the receiver
 * refuses them, the service is killed while the queue drains, and after a restart on the same
 * database every event is delivered, none recorded delivered twice, none that was recorded
 * delivered sent again, and every order's last state is among the events received.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnMarket, waitForLine } from '../helpers/cli.js';
import { read, type TestResponse } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { eventOf, rawData, until } from '../helpers/webhooks.js';

const ORDERS = 24;

describe('webhook deliveries through kill -9 of the service', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let origin = '';
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'market-webhook-crash-'));
    receiver = await startWebhookReceiver();
    await writeFile(join(dir, 'ca.pem'), receiver.ca);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    child = spawnMarket([
      'serve',
      ...[
        '--port',
        '0',
        '--sandbox',
        '--db',
        join(dir, 'market.duckdb'),
        '--listings',
        '3000',
        '--churn-paused',
      ],
      ...['--read-limit', '1000000', '--order-limit', '1000000'],
      ...['--webhook-allow-loopback', '--webhook-ca', join(dir, 'ca.pem')],
    ]);
    origin = (await waitForLine(child, /^http:\/\/.+\/v1$/)).replace(/\/v1$/, '');
  }

  async function call(path: string, key: string, method = 'GET', body?: unknown): Promise<TestResponse> {
    return read(
      await fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  }

  async function deliveries(key: string, hookId: string): Promise<Record<string, any>[]> {
    const page = await call(`/v1/webhooks/${hookId}/deliveries?limit=100`, key);
    return page.body.data;
  }

  it('loses no queued delivery and resends none recorded delivered', async () => {
    await start();
    const key: string = (await call('/sandbox/accounts', '', 'POST', { balance_usd: 100_000, trading: true }))
      .body.api_key;
    const hook = await call('/v1/webhooks', key, 'POST', { url: `${receiver.origin}/crash` });
    const hookId: string = hook.body.data.id;
    receiver.answer(() => ({ status: 503 }));
    const listings = await call('/v1/listings?limit=200&delivery=up_to_12h&sort=price_asc', key);
    const ids = listings.body.items
      .filter(
        (l: { source: string; api_purchasable: boolean }) => l.source === 'platform' && l.api_purchasable,
      )
      .slice(0, ORDERS)
      .map((l: { id: string }) => l.id);
    const orders: string[] = [];
    for (const id of ids)
      orders.push((await call('/v1/orders', key, 'POST', { listing_ids: [id] })).body.order_id);
    await until(async () => (await deliveries(key, hookId)).every((d) => d.attempts === 1));
    // The queue drains slowly from here; the kill lands while part of it is recorded delivered.
    receiver.answer(() => ({ status: 200, body: 'ok', delayMs: 40 }));
    await call('/sandbox/clock', '', 'POST', { advance_seconds: 10 });
    const deliveredBefore = await until(async () => {
      const done = (await deliveries(key, hookId)).filter((d) => d.status === 'delivered');
      return done.length >= 4 && done;
    });
    child?.kill('SIGKILL');
    await once(child as ChildProcess, 'exit');
    const killedAt = receiver.requests.length;
    await start();
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
      const now = await call(`/v1/orders/${orderId}`, key);
      const received = receiver.requests.filter((r) => eventOf(r).data.order_id === orderId).map(rawData);
      expect(received).toContain(now.text);
    }
    child?.kill('SIGTERM');
    await once(child as ChildProcess, 'exit');
  }, 120_000);
});
