import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CURRENCIES } from '../../src/contract/market.js';
import { churnUntil } from '../helpers/churn.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 1000, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account());
});
afterAll(() => t.close());

describe('GET /v1/games', () => {
  it('lists the games the key may read, CS2 first, with their tradable flag', async () => {
    const res = await t.call('/games', { key });
    expect(res.body.games).toEqual([
      { appId: 730, name: 'Counter-Strike 2', tradable: true },
      { appId: 570, name: 'Dota 2', tradable: true },
      { appId: 252490, name: 'Rust', tradable: false },
    ]);
    const { key: limited } = await t.account({ app_ids: [570], balance_usd: 0 });
    expect(
      (await t.call('/games', { key: limited })).body.games.map((g: { appId: number }) => g.appId),
    ).toEqual([570]);
  });
});

describe('GET /v1/health', () => {
  it('reports the number of price groups and the age of the price list', async () => {
    const res = await t.call('/health');
    expect(res.body.status).toBe('ok');
    expect(res.body.groups).toBe(t.service.context.prices.groupCount());
    expect(Number.isInteger(res.body.price_list_age_seconds)).toBe(true);
  });
});

describe('GET /v1/currency', () => {
  it('quotes every currency per 1 USD with updated_at, drifting slowly with time', async () => {
    const first = await t.call('/currency', { key });
    expect(first.body.base).toBe('USD');
    expect(Object.keys(first.body.rates).sort()).toEqual([...CURRENCIES].sort());
    expect(first.body.rates.USD).toBe(1);
    t.clock.advance(6 * 3_600_000);
    const later = await t.call('/currency', { key });
    expect(Date.parse(later.body.updated_at) - Date.parse(first.body.updated_at)).toBeGreaterThanOrEqual(
      6 * 3_600_000 - 60_000,
    );
    expect(later.body.rates.EUR).not.toBe(first.body.rates.EUR);
    for (const c of CURRENCIES) {
      expect(Math.abs(later.body.rates[c] / first.body.rates[c] - 1)).toBeLessThan(0.05);
    }
  });

  it('needs a key', async () => {
    expect((await t.call('/currency')).body.code).toBe('missing_api_key');
  });
});

describe('the market simulator', () => {
  it('churns listings at the set pace and stops when paused', async () => {
    const { churn } = t.service.context;
    const ticks = vi.spyOn(churn, 'tick');
    const changes: string[] = [];
    const stop = t.service.context.catalogue.onChange((batch) => {
      for (const c of batch) changes.push(c.kind);
    });
    const running = await t.sandbox('/simulator', { paused: false, rate_per_second: 200 });
    expect(running.body).toMatchObject({ paused: false, rate_per_second: 200 });
    // A second of market time: the next tick owes at least 200 changes.
    await t.sandbox('/clock', { advance_seconds: 1 });
    await expect.poll(() => changes.length >= 200, { timeout: 10_000 }).toBe(true);
    const paused = await t.sandbox('/simulator', { paused: true });
    expect(paused.body.paused).toBe(true);
    const atPause = changes.length;
    // Two more ticks after another second of market time: a paused churn changes nothing.
    const ticked = ticks.mock.calls.length;
    await t.sandbox('/clock', { advance_seconds: 1 });
    await expect.poll(() => ticks.mock.calls.length >= ticked + 2, { timeout: 10_000 }).toBe(true);
    stop();
    ticks.mockRestore();
    expect(atPause).toBeGreaterThanOrEqual(200);
    expect(changes.length).toBe(atPause);
    expect(changes).toContain('add');
    expect(changes).toContain('remove');
  });

  it('releases held listings when their trade lock ends, as re-listings', async () => {
    const held = (await readAllListings(t, key, '&delivery=hold')).slice(0, 5);
    expect(held.length).toBeGreaterThan(0);
    await t.sandbox('/clock', { advance_seconds: 9 * 86_400 });
    await t.sandbox('/simulator', { paused: false, rate_per_second: 0 });
    const { catalogue, clock } = t.service.context;
    await expect
      .poll(() => [...catalogue.heldUntil(clock.now())].length === 0, { timeout: 10_000 })
      .toBe(true);
    await t.sandbox('/simulator', { paused: true });
    for (const before of held) {
      const res = await t.call(`/listings?name=${encodeURIComponent(before.market_hash_name)}&limit=200`, {
        key,
      });
      const after = res.body.items.find((l: { id: string }) => l.id === before.id);
      expect(after).toBeDefined();
      expect(after.delivery).not.toBe('hold');
      expect(after.tradable).toBe(true);
      expect(Date.parse(after.listed_at)).toBeGreaterThan(Date.parse(before.listed_at as string));
    }
    expect((await readAllListings(t, key, '&delivery=hold')).length).toBe(0);
  });
});

describe('restart', () => {
  it('serves the same catalogue from the same database after a restart', async () => {
    const first = await startTestService({ listings: 400 });
    const dbPath = `${first.dir}/market.duckdb`;
    const account = await first.account();
    await churnUntil(first, { changes: 90, rate: 300 });
    const before = await readAllListings(first, account.key);
    const sequence = first.service.context.catalogue.nextSequence;
    await first.service.close();
    const second = await startTestService({ dbPath, listings: 5 });
    try {
      expect(await readAllListings(second, account.key)).toEqual(before);
      expect(second.service.context.catalogue.nextSequence).toBe(sequence);
    } finally {
      await second.close();
      await first.close().catch(() => undefined);
    }
  });
});
