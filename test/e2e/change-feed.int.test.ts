/** The change feed (`updated_after`) of GET /orders, /p2p/listings and /sell/orders over loopback. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/service/core/clock.js';
import { listCopy, marketItem, sellerWith } from '../helpers/p2p.js';
import { createSeller, grant, readyQuote, sellableItems, sellOrder } from '../helpers/sell.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy, listingsFor } from '../helpers/trading.js';

let t: TestService;
beforeAll(async () => {
  // Time moves only when a test moves it: a slow machine cannot let an offer's answer (5 s) land
  // between the changes a test orders.
  const frozenAt = Date.now();
  t = await startTestService({
    listings: 1500,
    rateLimits: { read: 10_000, orders: 10_000 },
    clock: createClock({ realNow: () => frozenAt }),
  });
});
afterAll(() => t.close());

type Row = { id?: string; order_id?: string; status: string; updated_at: string };

/** Every row of a change feed from `after`, `limit` per page, following next_cursor. */
async function feed(path: string, key: string, after: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ updated_after: after, limit: String(limit) });
    if (cursor !== null) query.set('cursor', cursor);
    const page = await t.call(`${path}?${query}`, { key });
    expect(page.status).toBe(200);
    rows.push(...page.body.data);
    cursor = page.body.meta.next_cursor;
  } while (cursor !== null);
  return rows;
}

const instant = (row: Row) => Date.parse(row.updated_at);
const ascending = (rows: Row[]) => rows.every((r, i) => i === 0 || instant(r) >= instant(rows[i - 1] as Row));

describe('GET /orders?updated_after', () => {
  it('pages every change oldest first, and a later change moves an order past the reader', async () => {
    const { key, accountId } = await t.account();
    await t.sandbox(`/accounts/${accountId}`, { accept_after_seconds: 5 }, 'PATCH');
    const start = (await t.sandbox('/clock')).body.now as string;
    const listings = await listingsFor(t, key, { delivery: 'instant', count: 3 });
    const ids: string[] = [];
    for (const listing of listings) {
      const placed = await buy(t, key, { listing_ids: [listing.id] });
      expect(placed.status).toBe(201);
      ids.push(placed.body.order_id);
      await advance(t, 1);
    }
    const before = await feed('/orders', key, new Date(Date.parse(start) - 1).toISOString(), 1);
    expect(before.map((r) => r.order_id)).toEqual(ids);
    expect(before.map((r) => r.status)).toEqual(['delivering', 'delivering', 'delivering']);

    // A reader holds the first page; the orders complete; its cursor now leads to none of them,
    // and the next poll from its watermark sees each completion once, oldest first.
    const first = await t.call(`/orders?updated_after=${encodeURIComponent(start)}&limit=1`, { key });
    await advance(t, 10);
    const rest = await t.call(
      `/orders?updated_after=${encodeURIComponent(start)}&limit=1&cursor=${first.body.meta.next_cursor}`,
      { key },
    );
    expect(rest.body.data.map((r: Row) => r.status)).toEqual(['completed']);
    const watermark = before.at(-1)?.updated_at as string;
    const after = await feed('/orders', key, watermark, 2);
    expect(after.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(new Set(after.map((r) => r.order_id))).toEqual(new Set(ids));
    expect(ascending(after)).toBe(true);
    expect(after.every((r) => instant(r) > Date.parse(watermark))).toBe(true);

    // Strictly after: from the last change there is nothing.
    expect(await feed('/orders', key, after.at(-1)?.updated_at as string, 10)).toEqual([]);
    // Without updated_after the list stays newest first.
    const plain = await t.call('/orders?limit=10', { key });
    expect(plain.body.data.map((r: Row) => r.order_id)).toEqual([...ids].reverse());
  });

  it('refuses a malformed instant and a cursor of the other kind with 400 invalid_param', async () => {
    const { key } = await t.account();
    const bad = await t.call('/orders?updated_after=yesterday', { key });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_param');
    const listings = await listingsFor(t, key, { delivery: 'instant', count: 2 });
    for (const listing of listings)
      expect((await buy(t, key, { listing_ids: [listing.id] })).status).toBe(201);
    const seqCursor = (await t.call('/orders?limit=1', { key })).body.meta.next_cursor;
    expect(seqCursor).toEqual(expect.any(String));
    const mixed = await t.call(`/orders?updated_after=2020-01-01T00:00:00.000Z&cursor=${seqCursor}`, { key });
    expect(mixed.status).toBe(400);
    expect(mixed.body.code).toBe('invalid_param');
    const feedCursor = (await t.call('/orders?updated_after=2020-01-01T00:00:00.000Z&limit=1', { key })).body
      .meta.next_cursor;
    const plain = await t.call(`/orders?cursor=${feedCursor}`, { key });
    expect(plain.status).toBe(400);
    expect(plain.body.code).toBe('invalid_param');
  });
});

describe('GET /p2p/listings and /sell/orders with updated_after', () => {
  it('follows a P2P listing while active, and drops it once withdrawn (an ended listing is no longer one)', async () => {
    const reader = await t.account();
    const { name, marketUsd } = await marketItem(t, reader.key);
    const seller = await sellerWith(t, name, 1);
    const start = (await t.sandbox('/clock')).body.now as string;
    const listed = await listCopy(t, seller, seller.assetIds[0] as string, Math.max(0.5, marketUsd - 0.1));
    const seen = await feed('/p2p/listings', seller.key, new Date(Date.parse(start) - 1).toISOString(), 1);
    expect(seen.map((r) => [r.id, r.status])).toEqual([[listed.id, 'active']]);
    await advance(t, 1);
    const removed = await t.call(`/p2p/listings/${listed.id}`, { key: seller.key, method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(await feed('/p2p/listings', seller.key, seen[0]?.updated_at as string, 1)).toEqual([]);
    expect(await feed('/p2p/listings', seller.key, new Date(Date.parse(start) - 1).toISOString(), 1)).toEqual(
      [],
    );
  });

  it('follows a sell order from pending through its states, oldest change first', async () => {
    const reader = await t.account();
    const [item] = await sellableItems(t, reader.key, 1);
    const seller = await createSeller(t);
    await grant(t, seller, (item as { name: string }).name, 1);
    const start = (await t.sandbox('/clock')).body.now as string;
    const q = await readyQuote(t, seller);
    const created = await sellOrder(t, seller, { quote_id: q.quote_id });
    expect(created.status).toBe(201);
    const from = new Date(Date.parse(start) - 1).toISOString();
    const seen = await feed('/sell/orders', seller.key, from, 1);
    expect(seen.map((r) => [r.id, r.status])).toEqual([[created.body.id, 'pending']]);
    await advance(t, 120);
    const later = await feed('/sell/orders', seller.key, seen[0]?.updated_at as string, 1);
    expect(later.map((r) => r.id)).toEqual([created.body.id]);
    expect(later[0]?.status).not.toBe('pending');
    expect(await feed('/sell/orders', seller.key, later[0]?.updated_at as string, 1)).toEqual([]);
    const bad = await t.call('/sell/orders?updated_after=2020-01-01', { key: seller.key });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_param');
  });
});
