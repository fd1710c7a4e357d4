/**
 * The sandbox clock as a test clock: one POST /sandbox/clock walks every due time inside the jump
 * in order (a seller's send, the buyer's answer 30 s later, an autoclaim and its offer), a held
 * order's claim window belongs to the order, a listing's trade lock ends on the clock whether the
 * churn runs or not, and the failed-auth ban and the rate windows follow the same clock. The clock
 * stands still unless a test moves it, so every stamp the walk makes is exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { createClock } from '../../src/service/core/clock.js';
import { sellerDelayMs } from '../../src/service/platform/seller-delay.js';
import type { ServiceOptions } from '../../src/service/service-options.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream } from '../helpers/stream.js';
import { advance, buy, ledgerProblems, listingsFor } from '../helpers/trading.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const buyable = (l: Listing) => l.source === 'platform' && l.api_purchasable !== false;

/** The service of the running describe block: each starts its own, as each moves the clock by days. */
let t: TestService;

/** Starts a fresh service for the block's tests on a clock that moves only when a test moves it. */
function serviceForBlock(options: ServiceOptions = {}): void {
  beforeAll(async () => {
    t = await startTestService({
      listings: 3000,
      clock: createClock({ start: Date.parse('2026-06-01T00:00:00.000Z'), realNow: () => 0 }),
      rateLimits: { read: 100_000, orders: 100_000 },
      ...options,
    });
  });
  afterAll(() => t?.close());
}

async function now(): Promise<number> {
  return Date.parse((await t.sandbox('/clock')).body.now);
}

async function order(key: string, id: string) {
  return (await t.call(`/orders/${id}`, { key })).body;
}

/** Every live CS2 listing with this delivery, page by page. */
async function everyListing(key: string, delivery: 'hold' | 'instant' | 'up_to_12h'): Promise<Listing[]> {
  const rows: Listing[] = [];
  let cursor: string | null = null;
  do {
    const page = await t.call(
      `/listings?delivery=${delivery}&limit=200${cursor === null ? '' : `&cursor=${cursor}`}`,
      { key },
    );
    expect(page.status).toBe(200);
    rows.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return rows;
}

describe('a clock move walks every due time inside the jump', () => {
  serviceForBlock();
  it('completes in one 13-hour move every up_to_12h order whose seller sends, each step at its own time', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    const sending = await listingsFor(t, key, {
      delivery: 'up_to_12h',
      count: 30,
      where: (l) => buyable(l) && sellerDelayMs(l.id) !== null,
    });
    const [silent] = await listingsFor(t, key, {
      delivery: 'up_to_12h',
      where: (l) => buyable(l) && sellerDelayMs(l.id) === null,
    });
    const placed: { id: string; delay: number; at: number }[] = [];
    for (const listing of sending) {
      const res = await buy(t, key, { listing_ids: [listing.id] });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending');
      placed.push({
        id: res.body.order_id,
        delay: sellerDelayMs(listing.id) as number,
        at: Date.parse(res.body.created_at),
      });
    }
    const never = await buy(t, key, { listing_ids: [silent?.id] });

    await advance(t, 13 * 3600);

    for (const { id, delay, at } of placed) {
      const done = await order(key, id);
      expect(done.status).toBe('completed');
      // Sent when the seller sent, accepted by the buyer's platform user 30 s after that.
      expect(done.items[0].steam_trade_offer_finished_at).toBe(iso(at + delay + 30_000));
    }
    const gaveUp = await order(key, never.body.order_id);
    expect(gaveUp).toMatchObject({ status: 'failed', refund: { partial: false } });
    expect(gaveUp.refund.refunded_at).toBe(iso(Date.parse(never.body.created_at) + 12 * HOUR));
    expect(gaveUp.items[0].return_reason).toBe('unavailable');
    expect(await ledgerProblems(t, key)).toEqual([]);
  });

  it('claims a held order under autoclaim and has its offer accepted inside the same jump', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    const clock = await now();
    const [held] = (await everyListing(key, 'hold'))
      .filter((l) => buyable(l) && l.tradable_at !== null && Date.parse(l.tradable_at) > clock + HOUR)
      .sort((a, b) => Date.parse(a.tradable_at as string) - Date.parse(b.tradable_at as string));
    const placed = await buy(t, key, { listing_ids: [held?.id], autoclaim: true });
    expect(placed.body.status).toBe('hold');
    const holdUntil = Date.parse(placed.body.hold_until);

    await advance(t, Math.ceil((holdUntil - (await now())) / 1000) + 3600);

    const done = await order(key, placed.body.order_id);
    expect(done.status).toBe('completed');
    expect(done.items[0].steam_trade_offer_finished_at).toBe(iso(holdUntil + 60_000 + 30_000));
  });
});

describe('the claim window belongs to the order', () => {
  serviceForBlock();
  it('expires no item of a held order before the whole order has been claimable for 7 days', async () => {
    const { key } = await t.account({ balance_usd: 100_000, trading: true });
    const clock = await now();
    const held = (await everyListing(key, 'hold'))
      .filter((l) => buyable(l) && l.tradable_at !== null && Date.parse(l.tradable_at) > clock + HOUR)
      .sort((a, b) => Date.parse(a.tradable_at as string) - Date.parse(b.tradable_at as string));
    const first = held[0] as Listing;
    const last = held.at(-1) as Listing;
    const firstUntil = Date.parse(first.tradable_at as string);
    const lastUntil = Date.parse(last.tradable_at as string);
    expect(lastUntil - firstUntil).toBeGreaterThan(DAY);
    const placed = await buy(t, key, { listing_ids: [first.id, last.id] });
    expect(placed.body).toMatchObject({ status: 'hold', hold_until: last.tradable_at, claimable: false });
    const id = placed.body.order_id;

    // Past the end of a window counted from the first item's own lock: nothing has expired.
    await advance(t, Math.ceil((firstUntil + 60_000 + 7 * DAY - (await now())) / 1000) + 1);
    const kept = await order(key, id);
    expect(kept).toMatchObject({ status: 'hold', refund: null });
    expect(kept.items.map((i: { status: string }) => i.status)).toEqual(['hold', 'hold']);

    // Claimable for the whole window after the last lock and its grace, and not a second longer.
    const windowEnd = lastUntil + 60_000 + 7 * DAY;
    await advance(t, Math.floor((windowEnd - (await now())) / 1000) - 1);
    expect(await order(key, id)).toMatchObject({ status: 'hold', claimable: true });
    await advance(t, 2);
    const expired = await order(key, id);
    expect(expired).toMatchObject({ status: 'failed', refund: { partial: false } });
    expect(expired.refund.refunded_at).toBe(iso(windowEnd));
    expect(expired.items.map((i: { return_reason: string }) => i.return_reason)).toEqual([
      'expired',
      'expired',
    ]);
    expect(await ledgerProblems(t, key)).toEqual([]);
  });
});

describe("a listing's trade lock ends on the clock", () => {
  serviceForBlock();
  it('releases every held listing whose lock a jump passes, with the churn paused', async () => {
    const { key } = await t.account();
    expect((await t.sandbox('/simulator')).body.paused).toBe(true);
    const before = await now();
    const soon = (await everyListing(key, 'hold')).filter(
      (l) => l.tradable_at !== null && Date.parse(l.tradable_at) < before + 2 * DAY,
    );
    expect(soon.length).toBeGreaterThan(0);

    await advance(t, 2 * 86_400);

    const clock = await now();
    const stale = (await everyListing(key, 'hold')).filter(
      (l) => l.tradable_at === null || Date.parse(l.tradable_at) <= clock,
    );
    expect(stale).toEqual([]);
    const name = encodeURIComponent(soon[0]?.market_hash_name ?? '');
    const page = await t.call(`/listings?search=${name}&limit=200`, { key });
    const released = page.body.items.find((l: Listing) => l.id === soon[0]?.id);
    expect(released).toMatchObject({ tradable: true, tradable_at: null });
    expect(released.delivery).not.toBe('hold');
  });

  it('releases a lock that ends while the clock runs, before a read answers', async () => {
    const { key } = await t.account();
    const before = await now();
    const [next] = (await everyListing(key, 'hold'))
      .filter((l) => l.tradable_at !== null)
      .sort((a, b) => Date.parse(a.tradable_at as string) - Date.parse(b.tradable_at as string));
    expect(next).toBeDefined();
    // The clock moves by itself here, as real time would: no clock move runs the due work.
    t.clock.advance(Date.parse(next?.tradable_at as string) - before);
    const held = await everyListing(key, 'hold');
    expect(held.map((l) => l.id)).not.toContain(next?.id);
  });
});

describe('the failed-auth ban, the rate windows and every Date header follow the service clock', () => {
  serviceForBlock({ listings: 10, trustProxy: ['127.0.0.1'], rateLimits: {} });
  it('lifts a ban exactly 5 minutes of service clock after it began', async () => {
    const { key } = await t.account();
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    for (let i = 0; i < 31; i++) await t.call('/balance', { headers, key: `svc_pub_bad${i}` });
    const banned = await t.call('/balance', { headers, key });
    expect(banned.status).toBe(401);
    expect(banned.body.code).toBe('too_many_failed_auth');
    expect(banned.headers.get('retry-after')).toBe('300');
    await advance(t, 240);
    const later = await t.call('/balance', { headers, key });
    expect(later.headers.get('retry-after')).toBe('60');
    await advance(t, 59);
    expect((await t.call('/balance', { headers, key })).body.code).toBe('too_many_failed_auth');
    await advance(t, 1);
    expect((await t.call('/balance', { headers, key })).status).toBe(200);
  });

  it('frees a rate window after a minute of service clock', async () => {
    const { key } = await t.account();
    for (let i = 0; i < 100; i++) await t.call('/balance', { key });
    const refused = await t.call('/balance', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    await advance(t, 59);
    expect((await t.call('/balance', { key })).headers.get('retry-after')).toBe('1');
    await advance(t, 1);
    expect((await t.call('/balance', { key })).status).toBe(200);
  });

  it("sends the service clock as the stream's Date, as every other answer's", async () => {
    await advance(t, 3 * 86_400);
    const { key } = await t.account();
    const now = Date.parse((await t.sandbox('/clock')).body.now);
    const stream = new AbortController();
    const opened = await fetch(`${t.baseUrl}/listings/stream`, {
      headers: { authorization: `Bearer ${key}` },
      signal: stream.signal,
    });
    stream.abort();
    expect(opened.status).toBe(200);
    expect(opened.headers.get('date')).toBe(new Date(now).toUTCString());
    expect((await t.call('/balance', { key })).headers.get('date')).toBe(new Date(now).toUTCString());
  });

  it('refuses a 4th stream with a Retry-After, and the refusal costs no read', async () => {
    const { key } = await t.account();
    const open = [openStream(t.baseUrl, key), openStream(t.baseUrl, key), openStream(t.baseUrl, key)];
    try {
      await Promise.all(open.map((c) => c.opened));
      for (let i = 0; i < 5; i++) {
        const fourth = await t.call('/listings/stream', { key });
        expect(fourth.status).toBe(429);
        expect(fourth.body).toMatchObject({ code: 'too_many_streams', limit: 3, retry_after_seconds: 1 });
        expect(fourth.headers.get('retry-after')).toBe('1');
      }
      // The three streams that opened took 3 of the 100 reads of the minute; the refusals took none.
      for (let i = 0; i < 97; i++) expect((await t.call('/balance', { key })).status).toBe(200);
      expect((await t.call('/balance', { key })).body.code).toBe('rate_limit_exceeded');
    } finally {
      for (const c of open) c.close();
    }
  });
});
