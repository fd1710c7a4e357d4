import { text } from 'node:stream/consumers';
import { createGunzip } from 'node:zlib';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketClient, type MarketClientOptions } from '../../src/client/index.js';
import { APP_IDS } from '../../src/contract/common.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ listings: 500, rateLimits: { read: 1_000_000 } });
});
afterAll(() => t.close());

/** A client of a fresh funded account, closed after `use`. */
async function withClient<T>(
  use: (client: MarketClient, account: { key: string; accountId: string }) => Promise<T>,
  options: Partial<MarketClientOptions> = {},
): Promise<T> {
  const account = await t.account({ balance_usd: 100 });
  const client = new MarketClient({ baseUrl: t.baseUrl, apiKey: account.key, ...options });
  try {
    return await use(client, account);
  } finally {
    await client.close();
  }
}

describe('MarketClient reads', () => {
  it('parses health, games, currency and balance with the contract', async () => {
    await withClient(async (client) => {
      const health = await client.info.health();
      expect(health.status).toBe('ok');
      expect(health.groups).toBeGreaterThan(0);

      const games = await client.info.games();
      expect(games[0]?.appId).toBe(APP_IDS.cs2);
      expect(games.map((g) => g.appId).sort()).toEqual([252490, 570, 730]);

      const fx = await client.info.currency();
      expect(fx.base).toBe('USD');
      expect(fx.rates.USD).toBe(1);
      expect(Date.parse(fx.updated_at)).toBeGreaterThan(0);

      const balance = await client.account.balance();
      expect(balance).toMatchObject({ balance_usd: 100, settled_usd: 100, currency: 'USD' });
    });
  });

  it('pages the ledger and iterates it newest first', async () => {
    await withClient(async (client, { accountId }) => {
      for (let i = 1; i <= 4; i++) await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: i });
      const first = await client.account.transactions({ limit: 2, type: 'deposit' });
      expect(first.data.map((r) => r.amount_usd)).toEqual([4, 3]);
      expect(first.meta.next_cursor).toEqual(expect.any(String));
      const all = [];
      for await (const row of client.account.allTransactions({ limit: 2 })) all.push(row.amount_usd);
      expect(all).toEqual([4, 3, 2, 1, 100]);
    });
  });

  it.each([
    ['CS2', APP_IDS.cs2],
    ['Dota 2', APP_IDS.dota2],
    ['Rust', APP_IDS.rust],
  ])('walks every %s listing across keyset pages', async (_name, appId) => {
    await withClient(async (client) => {
      const expected = t.service.context.catalogue.index.size(appId);
      let pages = 0;
      for await (const page of client.listings.pages({ appId, limit: 37 })) {
        pages++;
        expect(page.items.length).toBeLessThanOrEqual(37);
      }
      const ids: string[] = [];
      for await (const listing of client.listings.all({ appId, limit: 37 })) ids.push(listing.id);
      expect(ids).toHaveLength(expected);
      expect(new Set(ids).size).toBe(expected);
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(expected / 37));
    });
  });

  it('sends typed filters, sorts and limits', async () => {
    await withClient(async (client) => {
      const page = await client.listings.list({ min_price: 1, max_price: 500, sort: 'price_asc', limit: 20 });
      expect(page.items.length).toBeGreaterThan(0);
      const prices = page.items.map((l) => l.price_usd);
      expect(prices).toEqual([...prices].sort((a, b) => a - b));
      expect(prices.every((p) => p >= 1 && p <= 500)).toBe(true);

      // A tiny float bound is written without an exponent, which the server would refuse.
      const floats = await client.listings.list({ min_float: 0.0000001, max_float: 0.5, limit: 5 });
      expect(floats.items.every((l) => (l.float_value ?? 0) <= 0.5)).toBe(true);

      const newest = await client.listings.list({
        sort: 'newest',
        available_after: '2000-01-01T00:00:00Z',
        limit: 3,
      });
      expect(newest.items).toHaveLength(3);
      expect(newest.items[0]?.listed_at).toEqual(expect.any(String));
    });
  });

  it('walks the whole price list', async () => {
    await withClient(async (client) => {
      const whole = await client.prices.list({ limit: 5000 });
      expect(whole.app_id).toBe(730);
      expect(whole.next_cursor).toBeNull();
      const rows = [];
      for await (const row of client.prices.all({ limit: 50 })) rows.push(row);
      expect(rows).toEqual(whole.items);
      const dota = await client.prices.list({ appId: APP_IDS.dota2, limit: 1 });
      expect(dota.app_id).toBe(APP_IDS.dota2);
      expect(dota.items[0]).toEqual({
        market_hash_name: expect.any(String),
        wear: null,
        doppler_phase: null,
        min_ask_usd: expect.any(Number),
        listed_count: expect.any(Number),
      });
    });
  });
});

describe('MarketClient.snapshot', () => {
  it('downloads the raw gzip, answers 304 for its ETag for free, and waits for the next download slot', async () => {
    const sleeps: number[] = [];
    const options: Partial<MarketClientOptions> = {
      clock: t.clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        t.clock.advance(ms);
      },
      maxRetries: 0,
    };
    await withClient(async (client) => {
      const first = await client.prices.snapshot();
      if (first.status !== 200) throw new Error('expected a download');
      expect(first.etag).toMatch(/^".+"$/);
      expect(Date.parse(first.generatedAt ?? '')).toBeGreaterThan(0);
      const lines = (await text(first.body.pipe(createGunzip()))).trimEnd().split('\n');
      const rows = lines.map((line) => JSON.parse(line));
      const prices = await client.prices.list({ limit: 5000 });
      expect(rows).toEqual(prices.items);

      const again = await client.prices.snapshot({ etag: first.etag ?? '' });
      expect(again).toEqual({ status: 304, etag: first.etag });
      expect(sleeps).toEqual([]);

      // A second download within the minute waits for the slot instead of meeting a 429.
      const second = await client.prices.snapshot();
      expect(second.status).toBe(200);
      if (second.status === 200) await second.body.dump({ limit: Number.POSITIVE_INFINITY });
      expect(sleeps).toHaveLength(1);
      expect(sleeps[0]).toBeGreaterThan(55_000);
      expect(sleeps[0]).toBeLessThanOrEqual(60_000);
    }, options);
  });
});

describe('MarketClient.streamFetch', () => {
  it('opens /listings/stream through eventsource with the key', async () => {
    await withClient(async (client) => {
      const es = new EventSource(`${client.baseUrl}/listings/stream`, {
        fetch: client.listings.streamFetch(),
      });
      try {
        await new Promise<void>((resolve, reject) => {
          es.onopen = () => resolve();
          es.onerror = (event) => reject(new Error(`stream failed: ${event.code} ${event.message}`));
        });
        expect(es.readyState).toBe(EventSource.OPEN);
      } finally {
        es.close();
      }
    });
  });

  it('is refused with 401 without a valid key', async () => {
    const client = new MarketClient({ baseUrl: t.baseUrl, apiKey: 'svc_pub_unknown' });
    const es = new EventSource(`${client.baseUrl}/listings/stream`, { fetch: client.listings.streamFetch() });
    try {
      const code = await new Promise<number | undefined>((resolve) => {
        es.onerror = (event) => resolve(event.code);
      });
      expect(code).toBe(401);
    } finally {
      es.close();
      await client.close();
    }
  });
});
