/** GET /p2p/inventory, POST/PATCH/DELETE/GET /p2p/listings over loopback: the proof, idempotency, prices, bad input and limits. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCopy, marketItem, publish, readyInventory, sellerWith } from '../helpers/p2p.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, buy } from '../helpers/trading.js';

let t: TestService;
let item: { name: string; marketUsd: number };

beforeAll(async () => {
  t = await startTestService({ rateLimits: { read: 1_000_000 } });
  const reader = await t.account();
  item = await marketItem(t, reader.key);
});
afterAll(() => t.close());

/** A seller with `count` copies, its inventory read ready, and the publish body of each copy at the market price. */
async function readySeller(count = 1) {
  const seller = await sellerWith(t, item.name, count);
  const rows = await readyInventory(t, seller.key);
  const bodies = rows.map((r) => ({
    operational_asset_id: r.operational_asset_id as string,
    asset_revision: r.asset_revision as string,
    price_usd: item.marketUsd,
  }));
  return { ...seller, rows, bodies, body: bodies[0] as (typeof bodies)[number] };
}

const patch = (key: string, id: string, body: unknown) =>
  t.call(`/p2p/listings/${id}`, { key, method: 'PATCH', body });

describe('GET /p2p/inventory', () => {
  it('is pending on the first read of a fresh inventory, then ready with one row per copy', async () => {
    const seller = await sellerWith(t, item.name, 2);
    const first = await t.call('/p2p/inventory', { key: seller.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: [], inventory_proof: { status: 'pending', code: null } });
    expect(first.body.inventory_proof.retry_after_ms).toBeGreaterThan(0);
    await advance(t, 5);
    const ready = await t.call('/p2p/inventory', { key: seller.key });
    expect(ready.body.inventory_proof).toMatchObject({ status: 'ready', retry_after_ms: null, code: null });
    expect(ready.body.data.map((r: any) => r.asset_id)).toEqual(seller.assetIds);
    const [row] = ready.body.data;
    expect(row).toMatchObject({ market_hash_name: item.name, listable: true, reasons: [], listed: false });
    expect(row.asset_revision.length).toBeGreaterThanOrEqual(16);
    expect(row.market_usd).toBe(item.marketUsd);
    expect(row.floor_usd).toBe(Math.ceil(item.marketUsd * 50) / 100);
  });

  it.each([
    ['private', 'inventory_private'],
    ['trade_banned', 'trade_banned'],
  ])('is blocked with a code for a %s inventory, and publishing says so', async (inventory, code) => {
    const seller = await readySeller();
    await t.sandbox(`/accounts/${seller.accountId}`, { inventory }, 'PATCH');
    const read = await t.call('/p2p/inventory', { key: seller.key });
    expect(read.body).toEqual({
      data: [],
      inventory_proof: { status: 'blocked', retry_after_ms: null, code, checked_at: null },
    });
    const refused = await publish(t, seller.key, seller.body, 'blocked-key-1');
    expect(refused.body).toMatchObject({ code: 'inventory_blocked', proof_code: code });
  });

  it('answers inventory_proof null for an account without a platform account', async () => {
    const { key } = await t.account({ steam_id: null });
    expect((await t.call('/p2p/inventory', { key })).body).toEqual({ data: [], inventory_proof: null });
  });
});

describe('POST /p2p/listings', () => {
  it('publishes one copy (201) and replays it under the same key (200, Idempotent-Replay)', async () => {
    const seller = await readySeller();
    const created = await publish(t, seller.key, seller.body, 'key-one-copy');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'active', price_usd: item.marketUsd, needs_resync: false });
    expect(created.body.commission_usd).toBe(Math.max(1, Math.round(item.marketUsd * 5)) / 100);
    expect(created.body.seller_payout_usd).toBe(
      Math.round((item.marketUsd - created.body.commission_usd) * 100) / 100,
    );
    const replay = await publish(t, seller.key, seller.body, 'key-one-copy');
    expect([replay.status, replay.headers.get('idempotent-replay'), replay.body.id]).toEqual([
      200,
      'true',
      created.body.id,
    ]);
    const other = await publish(
      t,
      seller.key,
      { ...seller.body, price_usd: item.marketUsd + 1 },
      'key-one-copy',
    );
    expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_mismatch']);
    const twice = await publish(t, seller.key, seller.body, 'another-key');
    expect([twice.status, twice.body.code, twice.body.listing_id]).toEqual([
      409,
      'already_listed',
      created.body.id,
    ]);
    expect((await readyInventory(t, seller.key))[0]).toMatchObject({
      listed: true,
      listable: false,
      listing_id: created.body.id,
    });
  });

  it('refuses a price under half the market price with 422 and leaves the key free', async () => {
    const seller = await readySeller();
    const floor = Math.ceil(item.marketUsd * 50) / 100;
    const low = await publish(t, seller.key, { ...seller.body, price_usd: floor - 0.01 }, 'key-low-price');
    expect(low.status).toBe(422);
    expect(low.body).toMatchObject({
      code: 'price_below_market',
      market_usd: item.marketUsd,
      floor_usd: floor,
    });
    const fixed = await publish(t, seller.key, { ...seller.body, price_usd: floor }, 'key-low-price');
    expect(fixed.status).toBe(201);
  });

  it('refuses a stale revision (409) and writes nothing under the key: sent again it answers the same', async () => {
    const seller = await readySeller();
    const stale = { ...seller.body, asset_revision: 'f'.repeat(32) };
    const changed = await publish(t, seller.key, stale, 'key-stale-rev');
    expect([changed.status, changed.body.code]).toEqual([409, 'asset_revision_changed']);
    const again = await publish(t, seller.key, stale, 'key-stale-rev');
    expect([again.status, again.body.code]).toEqual([409, 'asset_revision_changed']);
    const fresh = await publish(t, seller.key, seller.body, 'key-stale-rev');
    expect([fresh.status, fresh.body.status]).toEqual([201, 'active']);
  });

  it('answers a batch sent again with its refused items refused as before, never idempotency_key_consumed', async () => {
    const seller = await readySeller(3);
    const listed = await publish(t, seller.key, seller.bodies[2], 'key-listed-before');
    const stale = { ...seller.bodies[1], asset_revision: 'e'.repeat(32) };
    const items = [seller.bodies[0], stale, seller.bodies[2]];
    const codes = (r: Awaited<ReturnType<typeof publish>>) =>
      r.body.data.map((d: any) => [d.status, d.error?.code ?? null]);
    const first = await publish(t, seller.key, { items }, 'key-batch-refused');
    expect(codes(first)).toEqual([
      [201, null],
      [409, 'asset_revision_changed'],
      [409, 'already_listed'],
    ]);
    const again = await publish(t, seller.key, { items }, 'key-batch-refused');
    expect(codes(again)).toEqual([
      [200, null],
      [409, 'asset_revision_changed'],
      [409, 'already_listed'],
    ]);
    expect(again.body.data[2].error.listing_id).toBe(listed.body.id);
  });

  it('answers a batch with 200 and one result per item, a failed item carrying its own status and code', async () => {
    const seller = await readySeller(3);
    const items = [seller.bodies[0], { ...seller.bodies[1], price_usd: 0.1 }, seller.bodies[2]];
    const batch = await publish(t, seller.key, { items }, 'key-batch-3');
    expect(batch.status).toBe(200);
    expect(batch.body.data.map((r: any) => [r.index, r.ok, r.status, r.error?.code ?? null])).toEqual([
      [0, true, 201, null],
      [1, false, 422, 'price_below_market'],
      [2, true, 201, null],
    ]);
    const replay = await publish(t, seller.key, { items }, 'key-batch-3');
    expect(replay.body.data.map((r: any) => [r.status, r.replayed, r.listing?.id ?? null])).toEqual([
      [200, true, batch.body.data[0].listing.id],
      [422, false, null],
      [200, true, batch.body.data[2].listing.id],
    ]);
  });

  it('checks each item of a batch on its own: a malformed or repeated item fails alone', async () => {
    const seller = await readySeller(3);
    const [first, second, third] = seller.bodies;
    const items = [
      first,
      { ...second, price_usd: 12.345 },
      { ...third, foo: 1 },
      { ...first, price_usd: 50 },
      'not an item',
      third,
    ];
    const batch = await publish(t, seller.key, { items }, 'key-batch-malformed');
    expect(batch.status).toBe(200);
    expect(batch.body.data.map((r: any) => [r.index, r.status, r.error?.code ?? null])).toEqual([
      [0, 201, null],
      [1, 400, 'invalid_request'],
      [2, 400, 'invalid_request'],
      [3, 400, 'invalid_request'],
      [4, 400, 'invalid_request'],
      [5, 201, null],
    ]);
    expect(batch.body.data[1].error.detail).toMatch(/^body items\.1\.price_usd: must be a multiple of 0\.01/);
    expect(batch.body.data[2].error.detail).toMatch(/^body items\.2: unknown field foo/);
    expect(batch.body.data[3].error.detail).toContain('item 0 of this batch');
    const listed = (await t.call('/p2p/listings', { key: seller.key })).body.data;
    expect(listed.map((l: any) => l.id).sort()).toEqual(
      [batch.body.data[0].listing.id, batch.body.data[5].listing.id].sort(),
    );
  });

  it.each([
    ['no Idempotency-Key', null, (b: any) => b, 400, 'invalid_request'],
    ['a 7-character Idempotency-Key', 'short-7', (b: any) => b, 400, 'invalid_request'],
    [
      'a price with three decimals',
      'key-bad-input',
      (b: any) => ({ ...b, price_usd: 12.345 }),
      400,
      'invalid_request',
    ],
    ['a price under 0.10', 'key-bad-input', (b: any) => ({ ...b, price_usd: 0.09 }), 400, 'invalid_request'],
    [
      'a price over 100000',
      'key-bad-input',
      (b: any) => ({ ...b, price_usd: 100000.01 }),
      400,
      'invalid_request',
    ],
    [
      'a price as a string',
      'key-bad-input',
      (b: any) => ({ ...b, price_usd: '12.00' }),
      400,
      'invalid_request',
    ],
    [
      'a short revision',
      'key-bad-input',
      (b: any) => ({ ...b, asset_revision: 'abc' }),
      400,
      'invalid_request',
    ],
    [
      'an unknown asset id',
      'key-bad-input',
      (b: any) => ({ ...b, operational_asset_id: '730_1' }),
      404,
      'not_found',
    ],
    ['an empty batch', 'key-bad-input', () => ({ items: [] }), 400, 'invalid_request'],
    [
      'a batch of 51',
      'key-bad-input',
      (b: any) => ({ items: Array.from({ length: 51 }, () => b) }),
      400,
      'invalid_request',
    ],
    ['an unknown field', 'key-bad-input', (b: any) => ({ ...b, foo: 1 }), 400, 'invalid_request'],
    [
      'a batch with a field beside items',
      'key-bad-input',
      (b: any) => ({ items: [b], foo: 1 }),
      400,
      'invalid_request',
    ],
  ])('refuses %s and changes nothing', async (_, key, shape, status, code) => {
    const seller = await readySeller();
    const refused = await publish(t, seller.key, shape(seller.body), key);
    expect([refused.status, refused.body.code]).toEqual([status, code]);
    expect((await t.call('/p2p/listings', { key: seller.key })).body.data).toEqual([]);
    if (key !== null) expect((await publish(t, seller.key, seller.body, 'key-bad-input')).status).toBe(201);
  });

  it("refuses another seller's copy with 404", async () => {
    const owner = await readySeller();
    const thief = await readySeller();
    const refused = await publish(t, thief.key, owner.body, 'key-not-mine');
    expect([refused.status, refused.body.code]).toEqual([404, 'not_found']);
  });
});

describe('PATCH, DELETE and GET /p2p/listings', () => {
  it('reprices an active listing with commission and payout recomputed', async () => {
    const seller = await readySeller();
    const listing = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    const repriced = await patch(seller.key, listing.id, { price_usd: 250 });
    expect(repriced.status).toBe(200);
    expect(repriced.body).toMatchObject({
      id: listing.id,
      price_usd: 250,
      commission_usd: 12.5,
      seller_payout_usd: 237.5,
    });
    const shelf = await t.call(`/listings?name=${encodeURIComponent(item.name)}&limit=200`, {
      key: seller.key,
    });
    expect(shelf.body.items.find((l: any) => l.id === listing.id)?.price_usd).toBe(250);
    const low = await patch(seller.key, listing.id, { price_usd: 0.1 });
    expect(low.status).toBe(item.marketUsd >= 0.2 ? 422 : 200);
    expect((await patch(seller.key, listing.id, { price_usd: 1.005 })).body.code).toBe('invalid_request');
  });

  it('answers 409 listing_not_active for a listing mid-sale, and 404 for one of another account', async () => {
    const seller = await readySeller();
    const listing = await listCopy(t, seller, seller.assetIds[0] as string, item.marketUsd);
    const stranger = await t.account();
    expect((await patch(stranger.key, listing.id, { price_usd: 100 })).body.code).toBe('not_found');
    expect(
      (await t.call(`/p2p/listings/${listing.id}`, { key: stranger.key, method: 'DELETE' })).status,
    ).toBe(404);
    const buyer = await t.account({ balance_usd: 1000, trading: true });
    expect((await buy(t, buyer.key, { listing_ids: [listing.id] })).status).toBe(201);
    const midSale = await patch(seller.key, listing.id, { price_usd: 100 });
    expect(midSale.body).toMatchObject({ code: 'listing_not_active', status: 'trade_pending' });
    expect(midSale.status).toBe(409);
    const deleted = await t.call(`/p2p/listings/${listing.id}`, { key: seller.key, method: 'DELETE' });
    expect([deleted.status, deleted.body.code]).toEqual([409, 'listing_not_active']);
  });

  it('delists, then pages the listings that have not ended newest first with a status filter', async () => {
    const seller = await readySeller(4);
    const listed = [];
    for (const assetId of seller.assetIds) listed.push(await listCopy(t, seller, assetId, item.marketUsd));
    const deleted = await t.call(`/p2p/listings/${listed[0]?.id}`, { key: seller.key, method: 'DELETE' });
    expect(deleted.body).toEqual({ id: listed[0]?.id, deleted: true });
    const first = await t.call('/p2p/listings?limit=2', { key: seller.key });
    expect(first.body.data.map((l: any) => l.id)).toEqual([listed[3]?.id, listed[2]?.id]);
    const second = await t.call(`/p2p/listings?limit=2&cursor=${first.body.meta.next_cursor}`, {
      key: seller.key,
    });
    expect([second.body.data.map((l: any) => l.id), second.body.meta.next_cursor]).toEqual([
      [listed[1]?.id],
      null,
    ]);
    const changed = await t.call(`/p2p/listings?updated_after=${listed[0]?.created_at}`, { key: seller.key });
    expect(changed.body.data.map((l: any) => l.id)).not.toContain(listed[0]?.id);
    const active = await t.call('/p2p/listings?status=active', { key: seller.key });
    expect(active.body.data).toHaveLength(3);
    for (const status of ['gone', 'delisted'])
      expect((await t.call(`/p2p/listings?status=${status}`, { key: seller.key })).body.code).toBe(
        'invalid_param',
      );
    expect((await t.call('/p2p/listings?cursor=bad', { key: seller.key })).body.code).toBe('invalid_param');
    const again = await t.call(`/p2p/listings/${listed[0]?.id}`, { key: seller.key, method: 'DELETE' });
    expect([again.status, again.body.code]).toEqual([404, 'not_found']);
    expect(again.body.detail).toContain('withdrawn');
    expect((await patch(seller.key, listed[0]?.id, { price_usd: 100 })).status).toBe(404);
  });
});

describe('P2P write limit', () => {
  it('answers 429 rate_limit_exceeded after 30 P2P writes in a minute per key', async () => {
    const { key } = await t.account();
    const answers: number[] = [];
    for (let i = 0; i < 31; i++)
      answers.push((await t.call(`/p2p/listings/p2p_missing_${i}`, { key, method: 'DELETE' })).status);
    expect(answers.slice(0, 30).every((s) => s === 404)).toBe(true);
    const limited = await t.call('/p2p/listings/p2p_missing', { key, method: 'DELETE' });
    expect([answers[30], limited.body.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });
});
