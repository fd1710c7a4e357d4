import { describe, expect, it } from 'vitest';
import { ClientArgumentError, isNetworkError } from '../../src/client/index.js';
import { ApiError } from '../../src/contract/api-error.js';
import { type Order, orderSchema } from '../../src/contract/order.js';
import { hang, html, json, rejection, reset, type Step, scriptedClient } from './scripted-server.js';

const KEY = 'order-key-0001';

/** An order as the service answers it. */
function order(overrides: Partial<Order> = {}): Order {
  return orderSchema.parse({
    order_id: 'ord_1',
    app_id: 730,
    steam_id: '76561198000000001',
    status: 'delivering',
    custom_id: KEY,
    currency: 'USD',
    charged_total_usd: 12.5,
    item_count: 1,
    delivery: 'instant',
    expected_minutes: 2,
    hold_until: null,
    claimable: false,
    refund: null,
    created_at: '2026-11-21T12:00:00.000Z',
    updated_at: '2026-11-21T12:00:00.000Z',
    items: [
      {
        listing_id: 'lst_1',
        market_hash_name: 'AK-47 | Redline (Field-Tested)',
        price_usd: 12.5,
        status: 'delivering',
        tradable_at: null,
        return_reason: null,
        steam_trade_offer_id: null,
        steam_trade_offer_finished_at: null,
      },
    ],
    ...overrides,
  });
}

const error = (status: number, code: string, extra: Record<string, unknown> = {}, headers = {}): Step =>
  json(status, { code, detail: `${code} detail`, ...extra }, headers);
const created = json(201, order());
const notFound = error(404, 'not_found');
const BODY = { listing_ids: ['lst_1'], max_price_usd: 13 };
const INFO = `/v1/orders/info?custom_id=${KEY}`;

describe('MarketClient.orders.create', () => {
  it('POSTs the body with the key as Idempotency-Key and parses the order', async () => {
    const { client, requests } = await scriptedClient([created]);
    expect(await client.orders.create(BODY, { idempotencyKey: KEY })).toEqual(order());
    expect(requests).toHaveLength(1);
    const [sent] = requests;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/orders' });
    expect(sent?.headers).toMatchObject({
      'idempotency-key': KEY,
      authorization: 'Bearer svc_pub_scripted',
      'content-type': 'application/json',
    });
    // The key doubles as custom_id: the body does not repeat it.
    expect(JSON.parse(sent?.body ?? '')).toEqual(BODY);
  });

  it.each([
    ['429 after Retry-After', error(429, 'rate_limit_exceeded', {}, { 'retry-after': '3' }), [3000]],
    ['409 price_updating', error(409, 'price_updating'), [250]],
    ['503 market_unavailable', error(503, 'market_unavailable'), [250]],
    ['a 503 page', html(503), [250]],
    ['a reset connection', reset, [250]],
  ])('resends after %s with the same key, without a lookup', async (_name, failure, waits) => {
    const { client, requests, sleeps } = await scriptedClient([failure, failure, created]);
    expect(await client.orders.create(BODY, { idempotencyKey: KEY })).toEqual(order());
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('POST /v1/orders'));
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY, KEY]);
    expect(sleeps[0]).toBe(waits[0]);
    expect(sleeps).toHaveLength(2);
  });

  it.each([
    ['a timeout', hang],
    ['504 upstream_timeout', error(504, 'upstream_timeout')],
    ['500 order_failed', error(500, 'order_failed')],
    ['409 idempotency_in_progress', error(409, 'idempotency_in_progress')],
  ])('after %s looks the order up by custom_id and returns it without re-POSTing', async (_name, failure) => {
    const found = order({ status: 'completed' });
    const { client, requests, sleeps } = await scriptedClient([failure, json(200, found)], {
      timeoutMs: 200,
    });
    expect(await client.orders.create(BODY, { idempotencyKey: KEY })).toEqual(found);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/orders', `GET ${INFO}`]);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ['504 upstream_timeout', error(504, 'upstream_timeout')],
    ['409 idempotency_in_progress', error(409, 'idempotency_in_progress')],
  ])('after %s re-POSTs with the same key when the lookup finds nothing', async (_name, failure) => {
    const { client, requests, sleeps } = await scriptedClient([failure, notFound, created]);
    expect(await client.orders.create(BODY, { idempotencyKey: KEY })).toEqual(order());
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/orders',
      `GET ${INFO}`,
      'POST /v1/orders',
    ]);
    const posts = requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY]);
    expect(posts.map((r) => r.body)).toEqual([posts[0]?.body, posts[0]?.body]);
    expect(sleeps).toEqual([250]);
  });

  it('looks the order up under the game it was placed in', async () => {
    const { client, requests } = await scriptedClient([error(504, 'upstream_timeout'), json(200, order())]);
    await client.orders.create({ ...BODY, appId: 570 }, { idempotencyKey: KEY });
    expect(requests[1]?.url).toBe(`${INFO}&appId=570`);
  });

  it('throws the original failure once the retries are spent and the last lookup finds nothing', async () => {
    const timeout = error(504, 'upstream_timeout');
    const { client, requests } = await scriptedClient([timeout, notFound, timeout, notFound], {
      maxRetries: 1,
    });
    const thrown = await rejection(client.orders.create(BODY, { idempotencyKey: KEY }));
    expect(thrown).toMatchObject({ code: 'upstream_timeout', status: 504 });
    expect(requests.map((r) => r.method)).toEqual(['POST', 'GET', 'POST', 'GET']);
  });

  it('throws the original timeout, and does not re-POST, when the lookup itself fails', async () => {
    const { client, requests } = await scriptedClient([hang, error(401, 'invalid_api_key')], {
      timeoutMs: 200,
    });
    const thrown = await rejection(client.orders.create(BODY, { idempotencyKey: KEY }));
    expect(isNetworkError(thrown) && thrown.timedOut).toBe(true);
    expect(requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it.each([
    ['400 invalid_request', error(400, 'invalid_request'), {}],
    ['401 invalid_api_key', error(401, 'invalid_api_key'), {}],
    [
      '402 insufficient_balance',
      error(402, 'insufficient_balance', { balance_usd: 5, required_usd: 12.5, settled_usd: 5 }),
      { balance_usd: 5, required_usd: 12.5, settled_usd: 5 },
    ],
    ['403 trading_not_enabled', error(403, 'trading_not_enabled'), {}],
    ['409 price_moved', error(409, 'price_moved', { current_total_usd: 14.2 }), { current_total_usd: 14.2 }],
    [
      '409 item_unavailable',
      error(409, 'item_unavailable', { unavailable_ids: ['lst_1'] }),
      { unavailable_ids: ['lst_1'] },
    ],
  ])('throws %s at once as a typed ApiError with its extra fields', async (name, failure, extra) => {
    const { client, requests, sleeps } = await scriptedClient([failure, created]);
    const thrown = await rejection(client.orders.create(BODY, { idempotencyKey: KEY }));
    expect(thrown).toBeInstanceOf(ApiError);
    const [status, code] = name.split(' ');
    expect(thrown).toMatchObject({ status: Number(status), code, extra });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('refuses a custom_id that differs from the key before sending anything', async () => {
    const { client, requests } = await scriptedClient([created]);
    const thrown = await rejection(
      client.orders.create({ ...BODY, custom_id: 'other' }, { idempotencyKey: KEY }),
    );
    expect(thrown).toBeInstanceOf(ClientArgumentError);
    expect((thrown as Error).message).toMatch(/^orders\.create: custom_id and the idempotency key differ/);
    expect(await rejection(client.orders.create(BODY, { idempotencyKey: '' }))).toBeInstanceOf(
      ClientArgumentError,
    );
    expect(requests).toEqual([]);
    await client.orders.create({ ...BODY, custom_id: KEY }, { idempotencyKey: KEY });
    expect(JSON.parse(requests[0]?.body ?? '')).toMatchObject({ custom_id: KEY });
  });
});

describe('MarketClient.marketBuy', () => {
  it('POSTs /market/buy with the key and looks up a timed-out buy by custom_id alone', async () => {
    const body = { listing_ids: ['lst_1'], trade_url: 'https://example.test/tradeoffer/new/?partner=1' };
    const { client, requests } = await scriptedClient([error(504, 'upstream_timeout'), notFound, created]);
    expect(await client.orders.marketBuy(body, { idempotencyKey: KEY })).toEqual(order());
    expect(requests.map((r) => `${r.method} ${r.url} ${r.headers['idempotency-key'] ?? ''}`)).toEqual([
      `POST /v1/market/buy ${KEY}`,
      `GET ${INFO} `,
      `POST /v1/market/buy ${KEY}`,
    ]);
    expect(JSON.parse(requests[2]?.body ?? '')).toEqual(body);
  });
});

describe('MarketClient order reads and claims', () => {
  it('reads an order by id and by custom_id under its game', async () => {
    const { client, requests } = await scriptedClient([json(200, order())]);
    expect(await client.orders.get('ord/1', 570)).toEqual(order());
    expect(await client.orders.getByCustomId('my id', 252490)).toEqual(order());
    expect(await client.orders.get('ord_1')).toEqual(order());
    expect(requests.map((r) => r.url)).toEqual([
      '/v1/orders/ord%2F1?appId=570',
      '/v1/orders/info?custom_id=my+id&appId=252490',
      '/v1/orders/ord_1',
    ]);
  });

  it('answers null from findOrderByCustomId when no order carries the id', async () => {
    const { client } = await scriptedClient([notFound]);
    expect(await client.orders.findByCustomId(KEY)).toBeNull();
    expect(await rejection(client.orders.getByCustomId(KEY))).toMatchObject({ code: 'not_found' });
  });

  it('lists orders with their filters and walks every page', async () => {
    const first = { data: [order({ order_id: 'ord_2' })], meta: { next_cursor: 'c1' } };
    const last = { data: [order({ order_id: 'ord_1' })], meta: { next_cursor: null } };
    const { client, requests } = await scriptedClient([json(200, first), json(200, last)]);
    const ids: string[] = [];
    for await (const row of client.orders.all({ status: 'hold', appId: 730, limit: 1 }))
      ids.push(row.order_id);
    expect(ids).toEqual(['ord_2', 'ord_1']);
    expect(requests.map((r) => r.url)).toEqual([
      '/v1/orders?status=hold&appId=730&limit=1',
      '/v1/orders?status=hold&appId=730&limit=1&cursor=c1',
    ]);
  });

  it('claims a held order with an empty POST', async () => {
    const claimed = order({ status: 'delivering' });
    const { client, requests } = await scriptedClient([json(200, claimed)]);
    expect(await client.orders.claim('ord_1')).toEqual(claimed);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/orders/ord_1/claim', body: '' });
    expect(requests[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it.each([
    ['409 not_claimable', error(409, 'not_claimable')],
    ['503 market_unavailable', error(503, 'market_unavailable')],
  ])('never retries a claim, which carries no Idempotency-Key: %s', async (_name, failure) => {
    const { client, requests } = await scriptedClient([failure, json(200, order())]);
    expect(await rejection(client.orders.claim('ord_1'))).toBeInstanceOf(ApiError);
    expect(requests).toHaveLength(1);
  });
});
