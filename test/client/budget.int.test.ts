import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BUDGET, MarketClient, type Sleep } from '../../src/client/index.js';
import { claimBudget, readFirst } from '../../src/client/key-budget.js';
import { isApiError } from '../../src/contract/api-error.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ listings: 20, rateLimits: { read: 10 } });
});
afterAll(() => t.close());

/** A real sleep that remembers each wait as it begins, so a test can see that a client is waiting. */
function watchedSleep(waits: number[]): Sleep {
  return (ms, signal) => {
    waits.push(ms);
    return delay(ms, undefined, { signal });
  };
}

/**
 * A sleep that moves the service's clock instead of waiting, and remembers each wait. With
 * `quiet`, it first lets the requests on the wire land, as real time would: a clock that jumped
 * while a request was in flight would stamp it late at the server and hide an overrun.
 */
function fakeSleep(sleeps: number[], quiet: () => boolean = () => true) {
  return async (ms: number) => {
    sleeps.push(ms);
    await vi.waitFor(() => expect(quiet()).toBe(true), { interval: 2 });
    t.clock.advance(ms);
  };
}

/** A dispatcher that notes the service-clock time of every request it sends. */
function recordingDispatcher(sends: number[]): { dispatcher: Dispatcher; agent: Agent } {
  const agent = new Agent();
  const dispatcher = agent.compose((dispatch) => (options, handler) => {
    sends.push(t.clock.now());
    return dispatch(options, handler);
  });
  return { dispatcher, agent };
}

describe('the per-key request budget', () => {
  it('keeps 130 concurrent reads of two clients of one key inside the server limit, without a 429', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const sends: number[] = [];
    const sleeps: number[] = [];
    let answered = 0;
    const { dispatcher, agent } = recordingDispatcher(sends);
    const options = {
      baseUrl: t.baseUrl,
      apiKey: key,
      limits: { read: 10, windowMs: 60_000 },
      maxRetries: 0,
      clock: t.clock,
      sleep: fakeSleep(sleeps, () => answered === sends.length),
      dispatcher,
    };
    const a = new MarketClient(options);
    const b = new MarketClient(options);
    try {
      const calls = Array.from({ length: 130 }, (_, i) =>
        (i % 2 === 0 ? a.account.balance() : b.info.games()).finally(() => answered++),
      );
      const results = await Promise.allSettled(calls);
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused.map((r) => (isApiError(r.reason) ? r.reason.code : String(r.reason)))).toEqual([]);
      expect(sends).toHaveLength(130);
      // Any 11 consecutive sends span at least a window: at most 10 per rolling minute.
      for (let i = 0; i + 10 < sends.length; i++) {
        expect((sends[i + 10] ?? 0) - (sends[i] ?? 0)).toBeGreaterThanOrEqual(60_000);
      }
      expect((sends[129] ?? 0) - (sends[0] ?? 0)).toBeGreaterThanOrEqual(12 * 60_000);
      expect(sleeps.length).toBeGreaterThanOrEqual(12);
    } finally {
      await a.close();
      await b.close();
      await agent.close();
    }
  });

  it('refuses a second client of the key that asks for other limits', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const a = new MarketClient({ baseUrl: t.baseUrl, apiKey: key, limits: { read: 10 } });
    try {
      expect(() => new MarketClient({ baseUrl: t.baseUrl, apiKey: key, limits: { read: 50 } })).toThrow(
        /pass the same limits/,
      );
    } finally {
      await a.close();
    }
  });

  it('waits exactly Retry-After after a 429 caused by another client of the key, then succeeds', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    for (let i = 0; i < 10; i++) expect((await t.call('/balance', { key })).status).toBe(200);
    const refused = await t.call('/balance', { key });
    expect(refused.status).toBe(429);

    const sleeps: number[] = [];
    const sends: number[] = [];
    const { dispatcher, agent } = recordingDispatcher(sends);
    const client = new MarketClient({
      baseUrl: t.baseUrl,
      apiKey: key,
      clock: t.clock,
      sleep: fakeSleep(sleeps),
      dispatcher,
    });
    try {
      const balance = await client.account.balance();
      expect(balance.balance_usd).toBe(10);
      expect(sends).toHaveLength(2);
      expect(sleeps).toHaveLength(1);
      const retryAfter = Number(refused.headers.get('retry-after'));
      // The server's wait is whole seconds; a little real time has passed since `refused`.
      expect(sleeps[0]).toBe(Math.round((sleeps[0] ?? 0) / 1000) * 1000);
      expect(Math.abs((sleeps[0] ?? 0) - retryAfter * 1000)).toBeLessThanOrEqual(1000);
    } finally {
      await client.close();
      await agent.close();
    }
  });

  it('gives up at once, on its signal, reads queued behind a full window and a wait for Retry-After', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const limits = { ...DEFAULT_BUDGET, read: 2 };
    const waiting: number[] = [];
    const client = new MarketClient({
      baseUrl: t.baseUrl,
      apiKey: key,
      limits,
      maxRetries: 5,
      sleep: watchedSleep(waiting),
    });
    // The same budget the client holds, to see what it spent.
    const held = claimBudget(t.baseUrl, key, limits, { now: Date.now }, async () => undefined);
    try {
      await client.listings.list({ limit: 1 });
      await client.listings.list({ limit: 1 });
      const stopping = new AbortController();
      // The window is full for a minute: these wait for room, then one is aborted while in the queue.
      const queued = Array.from({ length: 3 }, () =>
        client.listings.list({ limit: 1 }, { signal: stopping.signal }).then(
          () => 'answered',
          (error: unknown) => (error as Error).name,
        ),
      );
      // The first waits for room in the window; the others are in line behind it.
      await expect.poll(() => waiting.length).toBeGreaterThan(0);
      stopping.abort();
      expect(await Promise.all(queued)).toEqual(['AbortError', 'AbortError', 'AbortError']);
      expect(held.budget.reads.used()).toBe(2);
      await expect(client.listings.list({ limit: 1 }, { signal: stopping.signal })).rejects.toThrow(/abort/i);
    } finally {
      held.release();
      await client.close();
    }
    // Another key the service already refuses for a while: the client waits for Retry-After.
    const other = await t.account({ balance_usd: 10 });
    for (let i = 0; i < 10; i++) await t.call('/balance', { key: other.key });
    const waitingForRetryAfter: number[] = [];
    const refused = new MarketClient({
      baseUrl: t.baseUrl,
      apiKey: other.key,
      maxRetries: 5,
      sleep: watchedSleep(waitingForRetryAfter),
    });
    try {
      const stopping = new AbortController();
      const waiting = refused.listings
        .list({ limit: 1 }, { signal: stopping.signal })
        .catch((e: Error) => e.name);
      await expect.poll(() => waitingForRetryAfter.length).toBeGreaterThan(0);
      stopping.abort();
      expect(await waiting).toBe('AbortError');
    } finally {
      await refused.close();
    }
  });

  it('grants the reads made inside readFirst before the reads already waiting for the window', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const paths: string[] = [];
    const sleeps: number[] = [];
    let answered = 0;
    let askedFirst = false;
    const agent = new Agent();
    const dispatcher = agent.compose((dispatch) => (options, handler) => {
      paths.push(String(options.path).split('?')[0] ?? '');
      return dispatch(options, handler);
    });
    const client = new MarketClient({
      baseUrl: t.baseUrl,
      apiKey: key,
      limits: { read: 2, windowMs: 60_000 },
      maxRetries: 0,
      clock: t.clock,
      // The window's time moves on only once the first reads are asked.
      sleep: fakeSleep(sleeps, () => askedFirst && answered === paths.length),
      dispatcher,
    });
    try {
      const later = Array.from({ length: 4 }, () => client.account.balance().finally(() => answered++));
      // The window is full and two reads wait for it when the first reads are asked.
      await vi.waitFor(() => expect(answered).toBe(2), { interval: 2 });
      const first = readFirst(() =>
        Array.from({ length: 2 }, () => client.info.games().finally(() => answered++)),
      );
      // Their way to the window is promises only: one turn of the event loop takes them there.
      await new Promise((resolve) => setImmediate(resolve));
      askedFirst = true;
      await Promise.all([...later, ...first]);
      // Once the window frees, the two asked first, then the two that waited before them.
      expect(paths).toEqual([
        '/v1/balance',
        '/v1/balance',
        '/v1/games',
        '/v1/games',
        '/v1/balance',
        '/v1/balance',
      ]);
    } finally {
      await client.close();
      await agent.close();
    }
  });
});
