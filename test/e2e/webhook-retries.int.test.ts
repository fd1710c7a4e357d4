/**
 * The retry ladder on the service clock (exact attempt times, walked with POST /sandbox/clock step
 * by step or in one long jump),
 * a fresh budget on retry, disabling at 50 consecutive failures and resuming after re-enabling,
 * a secret rotated between queueing and sending, and per-endpoint isolation from a slow receiver.
 * Orders here are held ones: nothing else happens to them while the clock walks a day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/index.js';
import { WEBHOOK_LIMITS } from '../../src/contract/webhook.js';
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
  frozenClock,
  register,
  startWebhookService,
  until,
} from '../helpers/webhooks.js';

describe('webhook retries on the service clock', () => {
  const clock = frozenClock();
  let receiver: WebhookReceiver;
  let t: TestService;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(clock);
    t = await startWebhookService(receiver, { clock });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** Buys one held listing per count and returns the order ids. */
  async function buyHeld(key: string, count: number): Promise<string[]> {
    const listings = await listingsFor(t, key, { delivery: 'hold', count });
    const ids: string[] = [];
    for (const listing of listings) {
      const placed = await buy(t, key, { listing_ids: [listing.id] });
      expect(placed.status).toBe(201);
      ids.push(placed.body.order_id);
    }
    return ids;
  }

  const at = (path: string) => receiver.requests.filter((r) => r.path === path);

  it('walks the ladder 10s 30s 1m 5m 15m 30m 1h 2h 4h 6h 12h at exact times, then fails; retry re-arms 12', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    receiver.answer((r) => (r.path === '/ladder' ? { status: 500, body: 'down' } : { status: 200 }));
    const hook = await register(t, key, `${receiver.origin}/ladder`);
    const start = clock.now();
    await buyHeld(key, 1);
    await until(() => at('/ladder').length === 1);
    const expected = [start];
    for (const [i, step] of WEBHOOK_LIMITS.retryLadderSeconds.entries()) {
      // The attempt is recorded before the clock moves on, so the next one is timed from it.
      await until(async () => (await deliveriesOf(t, key, hook.id))[0]?.attempts === i + 1);
      await advance(t, step);
      expected.push((expected.at(-1) as number) + step * 1000);
      await until(() => at('/ladder').length === i + 2);
    }
    const [failed] = await until(async () => {
      const rows = await deliveriesOf(t, key, hook.id, 'failed');
      return rows.length === 1 && rows;
    });
    expect(at('/ladder').map((r) => r.at)).toEqual(expected);
    expect(new Set(at('/ladder').map((r) => eventOf(r).id)).size).toBe(1);
    expect(failed).toMatchObject({
      attempts: 12,
      next_attempt_at: null,
      response_status: 500,
      response_body: 'down',
    });
    expect(failed?.last_error).toBe('receiver answered 500');
    await advance(t, 86_400);
    expect(at('/ladder')).toHaveLength(12);
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const retried = await t.call(`/webhooks/${hook.id}/deliveries/${failed?.delivery_id}/retry`, {
      key,
      method: 'POST',
    });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'pending', attempts: 0 });
    const [delivered] = await until(async () => {
      const rows = await deliveriesOf(t, key, hook.id, 'delivered');
      return rows.length === 1 && rows;
    });
    expect(delivered).toMatchObject({ attempts: 1, event_id: failed?.event_id, last_error: null });
    expect(at('/ladder')).toHaveLength(13);
  });

  it('walks every retry scheduled inside one long jump at its own instant', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    receiver.answer((r) => (r.path === '/jump' ? { status: 500, body: 'down' } : { status: 200 }));
    const hook = await register(t, key, `${receiver.origin}/jump`);
    const start = clock.now();
    await buyHeld(key, 1);
    await until(async () => (await deliveriesOf(t, key, hook.id))[0]?.attempts === 1);
    await advance(t, 1800);
    // 10 s, then 30 s, 1 min, 5 min and 15 min after each failure: 40 s, 100 s, 400 s, 1,300 s.
    const expected = [0, 10, 40, 100, 400, 1300].map((s) => start + s * 1000);
    expect(at('/jump').map((r) => r.at)).toEqual(expected);
    const [delivery] = await deliveriesOf(t, key, hook.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 6,
      last_attempt_at: new Date(start + 1_300_000).toISOString(),
      next_attempt_at: new Date(start + 3_100_000).toISOString(),
    });
  });

  it('disables an endpoint at 50 consecutive failures, keeps its queue, and resumes it when re-enabled', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    receiver.answer((r) => (r.path === '/flaky' ? { status: 503 } : { status: 200 }));
    const hook = await register(t, key, `${receiver.origin}/flaky`);
    await buyHeld(key, 5);
    // Five deliveries fail together at every step: the tenth attempt of the fifth is the fiftieth failure.
    for (const [i, step] of WEBHOOK_LIMITS.retryLadderSeconds.slice(0, 9).entries()) {
      await until(async () => {
        const rows = await deliveriesOf(t, key, hook.id);
        return rows.length === 5 && rows.every((d) => d.attempts === i + 1);
      });
      await advance(t, step);
    }
    const endpoint = await until(async () => {
      const row = (await t.call('/webhooks', { key })).body.data[0];
      return row.enabled === false && row;
    });
    expect(endpoint).toMatchObject({
      enabled: false,
      consecutive_failures: 50,
      last_error: 'receiver answered 503',
    });
    expect(at('/flaky')).toHaveLength(50);
    // An order written while the endpoint is disabled is queued too, and sent after re-enabling.
    await buyHeld(key, 1);
    const queued = await deliveriesOf(t, key, hook.id, 'pending');
    expect(queued).toHaveLength(6);
    await advance(t, 86_400);
    expect(at('/flaky')).toHaveLength(50);
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const enabled = await t.call(`/webhooks/${hook.id}`, { key, method: 'PATCH', body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, consecutive_failures: 0 });
    await until(async () => (await deliveriesOf(t, key, hook.id, 'delivered')).length === 6);
    expect(at('/flaky')).toHaveLength(56);
    const health = (await t.call('/webhooks', { key })).body.data[0];
    expect(health).toMatchObject({ enabled: true, consecutive_failures: 0 });
    expect(health.last_success_at).not.toBeNull();
  });

  it('signs a queued delivery with the secret current when it is sent', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    receiver.answer((r) => (r.path === '/rotation' ? { status: 500 } : { status: 200 }));
    const hook = await register(t, key, `${receiver.origin}/rotation`);
    await buyHeld(key, 1);
    await until(async () => (await deliveriesOf(t, key, hook.id))[0]?.attempts === 1);
    const rotated = await t.call(`/webhooks/${hook.id}/rotate-secret`, { key, method: 'POST' });
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    await advance(t, 10);
    await until(async () => (await deliveriesOf(t, key, hook.id, 'delivered')).length === 1);
    const [before, after] = at('/rotation') as [ReceivedRequest, ReceivedRequest];
    const sign = (r: ReceivedRequest) => String(r.headers['x-service-signature']);
    expect(verifyWebhook(hook.secret, sign(before), before.raw).id).toBe(eventOf(after).id);
    expect(verifyWebhook(rotated.body.data.secret, sign(after), after.raw).id).toBe(eventOf(before).id);
    expect(() => verifyWebhook(hook.secret, sign(after), after.raw)).toThrow(/no v1 signature matches/);
  });

  it('lets a slow receiver delay neither another endpoint nor the API; it fails after 10 s', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    receiver.answer((r) =>
      r.path === '/slow' ? { status: 200, delayMs: 12_000 } : { status: 200, body: 'ok' },
    );
    const slow = await register(t, key, `${receiver.origin}/slow`);
    const fast = await register(t, key, `${receiver.origin}/fast`);
    const [order] = await buyHeld(key, 1);
    await until(() => at('/slow').length === 1);
    await until(async () => (await deliveriesOf(t, key, fast.id, 'delivered')).length === 1);
    const [stuck] = await deliveriesOf(t, key, slow.id);
    expect(stuck).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await t.call(`/orders/${order}`, { key })).status).toBe(200);
    expect((await buyHeld(key, 1)).length).toBe(1);
    await until(async () => (await deliveriesOf(t, key, fast.id, 'delivered')).length === 2);
    const [timedOut] = await until(async () => {
      const rows = await deliveriesOf(t, key, slow.id);
      return rows.some((d) => d.attempts === 1) && rows.filter((d) => d.attempts === 1);
    }, 30_000);
    expect(timedOut).toMatchObject({
      status: 'pending',
      response_status: null,
      last_error: 'no answer within 10 s',
    });
  }, 60_000);
});
