import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/service/core/clock.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;

beforeAll(async () => {
  // Time stands still unless the test moves it, so a slow machine cannot shift the exact Retry-After.
  const frozenAt = Date.now();
  t = await startTestService({ listings: 50, clock: createClock({ realNow: () => frozenAt }) });
});
afterAll(() => t.close());

describe('per-key rate limit', () => {
  it('allows 100 reads per rolling minute and gives the exact Retry-After', async () => {
    const { key } = await t.account();
    for (let i = 0; i < 50; i++) expect((await t.call('/balance', { key })).status).toBe(200);
    t.clock.advance(20_000);
    for (let i = 0; i < 50; i++) expect((await t.call('/balance', { key })).status).toBe(200);

    const refused = await t.call('/balance', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.body.retry_after_seconds).toBe(40);

    t.clock.advance(39_000);
    const stillRefused = await t.call('/balance', { key });
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');

    t.clock.advance(1_000);
    // The first 50 have left the window: exactly 50 more fit, the 51st is refused again.
    for (let i = 0; i < 50; i++) expect((await t.call('/balance', { key })).status).toBe(200);
    const again = await t.call('/balance', { key });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(20);
  });

  it('keeps the budget per key', async () => {
    const a = await t.account();
    const b = await t.account();
    for (let i = 0; i < 100; i++) await t.call('/balance', { key: a.key });
    expect((await t.call('/balance', { key: a.key })).status).toBe(429);
    expect((await t.call('/balance', { key: b.key })).status).toBe(200);
  });

  it('does not count refused requests against the window', async () => {
    const { key } = await t.account();
    for (let i = 0; i < 100; i++) await t.call('/balance', { key });
    for (let i = 0; i < 20; i++) expect((await t.call('/balance', { key })).status).toBe(429);
    t.clock.advance(60_000);
    expect((await t.call('/balance', { key })).status).toBe(200);
  });
});

describe('per-address rate limit of /public/prices', () => {
  it('refuses the 101st request of a minute from one address, and says it counts per address', async () => {
    for (let i = 0; i < 100; i++) expect((await t.call('/public/prices?limit=1')).status).toBe(200);
    const refused = await t.call('/public/prices?limit=1');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limit_exceeded', limit: 100 });
    expect(refused.body.detail).toMatch(/from this address/);
    expect(refused.body.detail).not.toMatch(/key/);
  });
});
