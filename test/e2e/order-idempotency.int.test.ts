/** Idempotent buying over loopback: byte-identical replays (whatever the body), parallel requests and races for one listing. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { holdWriter } from '../helpers/hold-writer.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buy, ledgerOf, ledgerProblems, listingsFor } from '../helpers/trading.js';

describe('POST /orders idempotency', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 1500, rateLimits: { orders: 10_000 } });
  });
  afterAll(() => t.close());

  it('replays the first response byte for byte with Idempotent-Replay: true, by header or by custom_id', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key);
    const first = await buy(t, key, { listing_ids: [listing?.id] }, { 'idempotency-key': 'same-1' });
    expect(first.status).toBe(201);
    expect(first.body.custom_id).toBe('same-1');
    const byHeader = await buy(t, key, { listing_ids: [listing?.id] }, { 'idempotency-key': 'same-1' });
    const byBody = await buy(t, key, { listing_ids: [listing?.id], custom_id: 'same-1' });
    expect(first.headers.get('idempotent-replay')).toBeNull();
    for (const replay of [byHeader, byBody]) {
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replay')).toBe('true');
    }
    expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
  });

  it('replays the original order for the same key with another body, and buys nothing more', async () => {
    const { key } = await t.account();
    const [a, b] = await listingsFor(t, key, { count: 2 });
    const first = await buy(t, key, { listing_ids: [a?.id], custom_id: 'mm-1' });
    expect(first.status).toBe(201);
    const other = await buy(t, key, { listing_ids: [b?.id], max_price_usd: 99_999, custom_id: 'mm-1' });
    expect([other.status, other.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect(other.text).toBe(first.text);
    expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
    expect((await t.call('/orders', { key })).body.data).toHaveLength(1);
  });

  it('keeps keys per account: the same custom_id on two accounts makes two orders', async () => {
    const one = await t.account();
    const two = await t.account();
    const [a, b] = await listingsFor(t, one.key, { count: 2 });
    expect((await buy(t, one.key, { listing_ids: [a?.id], custom_id: 'shared' })).status).toBe(201);
    expect((await buy(t, two.key, { listing_ids: [b?.id], custom_id: 'shared' })).status).toBe(201);
  });

  it('buys once and charges once for 20 keys × 50 parallel identical requests', async () => {
    const buyers = await Promise.all(
      Array.from({ length: 20 }, () => t.account({ balance_usd: 1000, trading: true })),
    );
    const listings = await listingsFor(t, buyers[0]?.key ?? '', { count: 40 });
    const results = await Promise.all(
      buyers.flatMap((buyer, i) =>
        Array.from({ length: 50 }, () =>
          buy(t, buyer.key, { listing_ids: [listings[i * 2]?.id], custom_id: `par-${i}` }),
        ),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const inProgress = results.filter((r) => r.status === 409 && r.body.code === 'idempotency_in_progress');
    expect(created.length + inProgress.length).toBe(results.length);
    expect(new Set(created.map((r) => r.body.order_id)).size).toBe(20);
    for (const buyer of buyers) {
      expect((await ledgerOf(t, buyer.key)).filter((r) => r.type === 'purchase')).toHaveLength(1);
      expect(await ledgerProblems(t, buyer.key)).toEqual([]);
    }
    const orders = await Promise.all(buyers.map((b) => t.call('/orders', { key: b.key })));
    expect(orders.map((o) => o.body.data.length)).toEqual(buyers.map(() => 1));
  });

  it('sells a listing once when 10 keys race for it', async () => {
    const buyers = await Promise.all(
      Array.from({ length: 10 }, () => t.account({ balance_usd: 1000, trading: true })),
    );
    const [listing] = await listingsFor(t, buyers[0]?.key ?? '', { delivery: 'instant' });
    const results = await Promise.all(
      buyers.map((b, i) => buy(t, b.key, { listing_ids: [listing?.id], custom_id: `race-${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const lost of results.filter((r) => r.status !== 201)) {
      expect(lost.status).toBe(409);
      expect(['concurrent_update', 'item_unavailable']).toContain(lost.body.code);
    }
    const charged = await Promise.all(buyers.map((b) => ledgerOf(t, b.key)));
    expect(charged.filter((rows) => rows.some((r) => r.type === 'purchase'))).toHaveLength(1);
  });

  it('refuses an order for a listing the market took in the same transaction', async () => {
    const { key } = await t.account();
    const [listing] = await listingsFor(t, key, { delivery: 'instant' });
    const { units, catalogue } = t.service.context;
    // Hold the writer so the market's removal and the order queue into one transaction.
    const writer = await holdWriter(units);
    const gone = catalogue.apply([{ kind: 'remove', id: listing?.id as string }]);
    const order = buy(t, key, { listing_ids: [listing?.id] });
    await vi.waitFor(() => expect(units.queued()).toBe(2));
    writer.release();
    await gone;
    const refused = await order;
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'item_unavailable', unavailable_ids: [listing?.id] });
    expect((await ledgerOf(t, key)).filter((r) => r.type === 'purchase')).toEqual([]);
  });
});
