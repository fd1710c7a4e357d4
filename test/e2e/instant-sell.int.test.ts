/** Instant Sell over loopback: access, quotes, bad input, placing orders (idempotency, min_total_usd). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSeller,
  grant,
  inventoryIds,
  quote,
  readyQuote,
  type Seller,
  sellableItems,
  sellOrder,
} from '../helpers/sell.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { advance, ledgerOf } from '../helpers/trading.js';

let t: TestService;
let items: { name: string; priceUsd: number }[];

beforeAll(async () => {
  t = await startTestService();
  const reader = await t.account();
  items = await sellableItems(t, reader.key, 2);
});
afterAll(() => t.close());

const credit = (priceUsd: number) => Math.floor(Math.round(priceUsd * 100) * 0.88) / 100;
const first = () => items[0] as { name: string; priceUsd: number };

/** Grants a copy with a description of our choosing, as a trade elsewhere could bring it. */
async function grantDescribed(
  seller: Seller,
  name: string,
  listing: Record<string, unknown>,
): Promise<string> {
  const { platform } = t.service.context;
  const [id] = await platform.inventories.grant(
    seller.steamId,
    { appId: 730, marketHashName: name, listingId: 'l_test', listingJson: JSON.stringify(listing) },
    1,
  );
  return id as string;
}

describe('access', () => {
  it('GET /sell/status says whether the account has Instant Sell; without it every other endpoint is 403', async () => {
    const seller = await createSeller(t, false);
    const status = await t.call('/sell/status', { key: seller.key });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      enabled: false,
      max_bots_per_order: 3,
      settlement_days: 8,
      quote_ttl_seconds: 300,
      spread_percent: 12,
      items_per_bot: 10,
    });
    const refusals = [
      await quote(t, seller),
      await sellOrder(t, seller, { quote_id: 'sq_x' }),
      await t.call('/sell/orders', { key: seller.key }),
      await t.call('/sell/orders/so_x', { key: seller.key }),
    ];
    for (const refusal of refusals)
      expect([refusal.status, refusal.body.code]).toEqual([403, 'instant_sell_not_enabled']);
    await t.sandbox(`/accounts/${seller.accountId}`, { instant_sell: true }, 'PATCH');
    expect((await t.call('/sell/status', { key: seller.key })).body.enabled).toBe(true);
    expect((await t.call('/sell/orders', { key: seller.key })).body).toEqual({
      data: [],
      meta: { next_cursor: null },
    });
  });
});

describe('POST /sell/quotes', () => {
  it('credits each eligible copy its market price less 12 % (rounded down), says why others are not eligible, and expires', async () => {
    const seller = await createSeller(t);
    const [a, b] = await grant(t, seller, first().name, 2);
    const sticker = await grantDescribed(seller, first().name, { category: 'Sticker', tradable: true });
    const locked = await grantDescribed(seller, first().name, {
      tradable: false,
      tradable_at: '2999-01-01T00:00:00.000Z',
    });
    const banned = await grantDescribed(seller, first().name, { tradable: false, tradable_at: null });
    const priceless = await grantDescribed(seller, 'No Such Item Anywhere', { tradable: true });
    const body = await readyQuote(t, seller);
    const amount = credit(first().priceUsd);
    expect(body.items).toEqual([
      {
        asset_id: a,
        market_hash_name: first().name,
        eligible: true,
        market_usd: first().priceUsd,
        amount_usd: amount,
        reason: null,
      },
      {
        asset_id: b,
        market_hash_name: first().name,
        eligible: true,
        market_usd: first().priceUsd,
        amount_usd: amount,
        reason: null,
      },
      expect.objectContaining({
        asset_id: sticker,
        eligible: false,
        amount_usd: null,
        reason: 'unsupported_item',
      }),
      expect.objectContaining({
        asset_id: locked,
        eligible: false,
        amount_usd: null,
        reason: 'trade_locked',
      }),
      expect.objectContaining({
        asset_id: banned,
        eligible: false,
        amount_usd: null,
        reason: 'not_tradable',
      }),
      {
        asset_id: priceless,
        market_hash_name: 'No Such Item Anywhere',
        eligible: false,
        market_usd: null,
        amount_usd: null,
        reason: 'no_price',
      },
    ]);
    expect(Math.round(body.total_usd * 100)).toBe(2 * Math.round(amount * 100));
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(300_000);
    expect(body).toMatchObject({ app_id: 730, steam_id: seller.steamId, currency: 'USD' });
    expect(body.quote_id).toMatch(/^sq_/);
    const narrowed = await readyQuote(t, seller, { asset_ids: [b] });
    expect(narrowed.items.map((i: { asset_id: string }) => i.asset_id)).toEqual([b]);
    expect(narrowed.total_usd).toBe(amount);
  });

  it('answers 409 inventory_pending while a fresh inventory loads (Retry-After) and 409 inventory_blocked when it is private or trade banned', async () => {
    const seller = await createSeller(t);
    const pending = await quote(t, seller);
    expect([pending.status, pending.body.code]).toEqual([409, 'inventory_pending']);
    expect(pending.body.retry_after_ms).toBeGreaterThan(0);
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const inventory of ['private', 'trade_banned'] as const) {
      await t.sandbox(`/accounts/${seller.accountId}`, { inventory }, 'PATCH');
      const blocked = await quote(t, seller);
      expect([blocked.status, blocked.body.code]).toEqual([409, 'inventory_blocked']);
      expect(blocked.body.proof_code).toBe(inventory === 'private' ? 'inventory_private' : 'trade_banned');
    }
  });

  it.each([
    [
      'a trade URL the platform did not issue',
      { trade_url: 'https://example.com/x' },
      400,
      'invalid_trade_url',
    ],
    ['asset_ids that repeat', { asset_ids: ['1', '1'] }, 400, 'invalid_request'],
    ['asset_ids of the wrong type', { asset_ids: 'all' }, 400, 'invalid_request'],
    ['an empty asset_ids', { asset_ids: [] }, 400, 'invalid_request'],
    [
      'more than 200 asset_ids',
      { asset_ids: Array.from({ length: 201 }, (_, i) => String(i)) },
      400,
      'invalid_request',
    ],
    ['an asset not in the inventory', { asset_ids: ['99999999999'] }, 404, 'not_found'],
    ['a game the bots do not buy', { appId: 252490 }, 400, 'unsupported_game'],
    ['an unknown field type for appId', { appId: '730' }, 400, 'invalid_request'],
  ])('refuses %s and stores nothing', async (_name, body, status, code) => {
    const seller = await createSeller(t);
    await grant(t, seller, first().name);
    await readyQuote(t, seller);
    const refused = await quote(t, seller, body);
    expect([refused.status, refused.body.code]).toEqual([status, code]);
    expect(typeof refused.body.detail).toBe('string');
  });

  it('refuses a private inventory behind the trade URL as 400 invalid_trade_url', async () => {
    const seller = await createSeller(t);
    const url = await t.sandbox('/trade-urls/1230');
    const refused = await quote(t, seller, { trade_url: url.body.trade_url });
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_trade_url']);
  });
});

describe('POST /sell/orders', () => {
  it('is idempotent on external_id: the replay answers the same order (200, Idempotent-Replay); another quote is 409', async () => {
    const seller = await createSeller(t);
    await grant(t, seller, first().name);
    const q = await readyQuote(t, seller);
    const created = await sellOrder(t, seller, { quote_id: q.quote_id, external_id: 'ext-1' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      external_id: 'ext-1',
      quote_id: q.quote_id,
      offers: [],
    });
    const replay = await sellOrder(t, seller, { quote_id: q.quote_id, external_id: 'ext-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body.id).toBe(created.body.id);
    const other = await sellOrder(t, seller, { quote_id: 'sq_other', external_id: 'ext-1' });
    expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_mismatch']);
    const again = await sellOrder(t, seller, { quote_id: q.quote_id });
    expect([again.status, again.body.code, again.body.order_id]).toEqual([
      409,
      'sell_quote_used',
      created.body.id,
    ]);
    expect((await t.call('/sell/orders', { key: seller.key })).body.data).toHaveLength(1);
  });

  it('refuses a total below min_total_usd with 409 and sends nothing; the quote stays usable', async () => {
    const seller = await createSeller(t);
    const ids = await grant(t, seller, first().name, 2);
    const q = await readyQuote(t, seller);
    const above = Math.round(q.total_usd * 100 + 1) / 100;
    const refused = await sellOrder(t, seller, { quote_id: q.quote_id, min_total_usd: above });
    expect([refused.status, refused.body.code]).toEqual([409, 'sell_total_below_minimum']);
    expect(refused.body).toMatchObject({ total_usd: q.total_usd, min_total_usd: above });
    // A copy that left the inventory since the quote lowers the total below the minimum too.
    await t.sandbox(`/accounts/${seller.accountId}/inventory/${ids[0]}`, undefined, 'DELETE');
    const drifted = await sellOrder(t, seller, { quote_id: q.quote_id, min_total_usd: q.total_usd });
    expect([drifted.status, drifted.body.code]).toEqual([409, 'sell_total_below_minimum']);
    await advance(t, 60);
    expect((await t.sandbox(`/accounts/${seller.accountId}/offers`)).body.data).toEqual([]);
    expect((await t.call('/sell/orders', { key: seller.key })).body.data).toEqual([]);
    expect(await inventoryIds(t, seller)).toEqual([ids[1]]);
    const placed = await sellOrder(t, seller, {
      quote_id: q.quote_id,
      min_total_usd: credit(first().priceUsd),
    });
    expect(placed.status).toBe(201);
    expect(placed.body.items.map((i: { asset_id: string }) => i.asset_id)).toEqual([ids[1]]);
  });

  it("refuses an expired quote, an unknown one, someone else's, and a quote with nothing left to sell", async () => {
    const seller = await createSeller(t);
    const [id] = await grant(t, seller, first().name);
    const q = await readyQuote(t, seller);
    const stranger = await createSeller(t);
    const foreign = await sellOrder(t, stranger, { quote_id: q.quote_id });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    const unknown = await sellOrder(t, seller, { quote_id: 'sq_nope' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    await t.sandbox(`/accounts/${seller.accountId}/inventory/${id}`, undefined, 'DELETE');
    const empty = await sellOrder(t, seller, { quote_id: q.quote_id });
    expect([empty.status, empty.body.code]).toEqual([409, 'sell_nothing_to_sell']);
    await advance(t, 301);
    const expired = await sellOrder(t, seller, { quote_id: q.quote_id });
    expect([expired.status, expired.body.code, expired.body.expired_at]).toEqual([
      409,
      'sell_quote_expired',
      q.expires_at,
    ]);
    expect((await t.call('/sell/orders', { key: seller.key })).body.data).toEqual([]);
    expect(await ledgerOf(t, seller.key)).toEqual([]);
  });

  it('does not sell a copy a pending order already holds: a second quote of it has nothing left to sell', async () => {
    const seller = await createSeller(t);
    const [id] = await grant(t, seller, first().name);
    const q1 = await readyQuote(t, seller);
    const q2 = await readyQuote(t, seller);
    const placed = await sellOrder(t, seller, { quote_id: q1.quote_id });
    expect(placed.body.items.map((i: { asset_id: string }) => i.asset_id)).toEqual([id]);
    const second = await sellOrder(t, seller, { quote_id: q2.quote_id });
    expect([second.status, second.body.code]).toEqual([409, 'sell_nothing_to_sell']);
    expect((await t.call('/sell/orders', { key: seller.key })).body.data).toHaveLength(1);
  });

  it.each([
    ['min_total_usd with three decimals', { min_total_usd: 1.234 }],
    ['a negative min_total_usd', { min_total_usd: -1 }],
    ['a quote_id of the wrong type', { quote_id: 12 }],
    ['an empty external_id', { external_id: '' }],
    ['an external_id over 128 characters', { external_id: 'x'.repeat(129) }],
  ])('answers 400 invalid_request for %s', async (_name, body) => {
    const seller = await createSeller(t);
    const refused = await sellOrder(t, seller, { quote_id: 'sq_x', ...body });
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_request']);
  });

  it("answers 404 for someone else's sell order and pages the account's own, newest first, with a status filter", async () => {
    const seller = await createSeller(t);
    await grant(t, seller, first().name, 2);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const q = await readyQuote(t, seller, { asset_ids: [(await inventoryIds(t, seller))[0]] });
      ids.push((await sellOrder(t, seller, { quote_id: q.quote_id })).body.id);
      await advance(t, 5);
    }
    const stranger = await createSeller(t);
    const foreign = await t.call(`/sell/orders/${ids[0]}`, { key: stranger.key });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    const page1 = await t.call('/sell/orders?limit=1', { key: seller.key });
    expect(page1.body.data.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
    const page2 = await t.call(`/sell/orders?limit=1&cursor=${page1.body.meta.next_cursor}`, {
      key: seller.key,
    });
    expect(page2.body).toEqual({
      data: [expect.objectContaining({ id: ids[0] })],
      meta: { next_cursor: null },
    });
    const sent = await t.call('/sell/orders?status=offer_sent', { key: seller.key });
    expect(sent.body.data).toHaveLength(2);
    expect((await t.call('/sell/orders?status=completed', { key: seller.key })).body.data).toEqual([]);
    const bad = await t.call('/sell/orders?status=nope', { key: seller.key });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_param']);
  });
});

describe('limits', () => {
  it('counts POST /sell/quotes and /sell/orders in the sell_write budget per key (429 with Retry-After), not reads', async () => {
    const limited = await startTestService({ rateLimits: { sell_write: 2 } });
    try {
      const seller = await createSeller(limited);
      const answers = [
        await quote(limited, seller),
        await sellOrder(limited, seller, { quote_id: 'sq_x' }),
        await quote(limited, seller),
      ];
      expect(answers.map((a) => a.status)).toEqual([409, 404, 429]);
      expect(answers[2]?.body).toMatchObject({ code: 'rate_limit_exceeded', limit: 2 });
      expect(Number(answers[2]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await limited.call('/sell/orders', { key: seller.key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
