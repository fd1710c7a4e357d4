/**
 * Real responses of every operation, produced by the real service over loopback, replayed
 * through the OpenAPI document it serves: each status must be documented, each JSON body valid
 * against its schema, each documented header that is sent valid. Every operation answers at least
 * one client error here (the address ban reaches every one), and a success when this file has a
 * request for it in SUCCESSES (an operation without one is tried with a plain keyed GET when it
 * takes no required parameter, and named when no success of it was replayed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameOf, type Operation, operationsOf, ResponseChecker } from '../helpers/openapi-responses.js';
import { createSeller, grant, readyQuote, type Seller, sellableItems } from '../helpers/sell.js';
import { read, startTestService, type TestResponse, type TestService } from '../helpers/service.js';
import { advance, listingsFor } from '../helpers/trading.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { register, until } from '../helpers/webhooks.js';

let t: TestService;
let doc: any;
let checker: ResponseChecker;
/** Status classes replayed per operation (`GET /orders` → {'2xx', '4xx'}). */
const replayed = new Map<string, Set<string>>();
const problems: string[] = [];

interface Call {
  method?: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls the service and checks the response against the document. */
async function replay(path: string, init: Call = {}): Promise<TestResponse> {
  const response = path.startsWith('/listings/stream')
    ? await openStream(path, init)
    : await t.call(path, init);
  const method = init.method ?? 'GET';
  const operation = checker.find(method, path.split('?')[0] ?? path);
  if (!operation) {
    problems.push(`${method} ${path}: no operation of the document`);
    return response;
  }
  problems.push(...checker.problems(operation, response));
  const classes = replayed.get(nameOf(operation)) ?? new Set<string>();
  classes.add(`${String(response.status)[0]}xx`);
  replayed.set(nameOf(operation), classes);
  return response;
}

/** Opens the endless event stream, keeps its status and headers, and closes it. */
async function openStream(path: string, init: Call): Promise<TestResponse> {
  const abort = new AbortController();
  const response = await fetch(`${t.baseUrl}${path}`, {
    headers: { ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...init.headers },
    signal: abort.signal,
  });
  if (response.status !== 200) return read(response);
  abort.abort();
  return { status: 200, headers: response.headers, body: '', text: '' };
}

let funded: string;
let trading: { orderId: string; customId: string; body: Record<string, unknown> };
let p2p: { key: string; listingId: string; bodies: Record<string, unknown>[] };
let seller: Seller;
let sale: { quoteId: string; orderId: string; body: Record<string, unknown> };
let receiver: WebhookReceiver;
let hook: { id: string; deliveryId: string };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const webhooks = { allowLoopback: true, loopbackCa: receiver.ca };
  t = await startTestService({ listings: 800, trustProxy: ['127.0.0.1'], webhooks });
  doc = (await t.call('/openapi.json')).body;
  checker = new ResponseChecker(doc);
  funded = (await t.account({ balance_usd: 500, trading: true, external_buy: true })).key;
  const [listing] = await listingsFor(t, funded, { delivery: 'instant' });
  const body = { listing_ids: [listing?.id], custom_id: 'replay-order-1' };
  const placed = await t.call('/orders', { method: 'POST', key: funded, body });
  if (placed.status !== 201) throw new Error(`order: ${placed.text}`);
  trading = { orderId: placed.body.order_id, customId: 'replay-order-1', body };
  const [live] = (await t.call('/listings?limit=1&sort=price_asc&min_price=1', { key: funded })).body.items;
  p2p = await p2pSeller(live.market_hash_name);
  // An Instant Sell order placed with an external_id (sent again, it is replayed), and a second
  // copy left in the inventory for a quote.
  seller = await createSeller(t);
  const [item] = await sellableItems(t, funded, 1);
  await grant(t, seller, item?.name as string, 2);
  const [first] = (await readyQuote(t, seller)).items;
  const quote = await readyQuote(t, seller, { asset_ids: [first.asset_id] });
  const saleBody = { quote_id: quote.quote_id, external_id: 'replay-sale-1' };
  const sold = await t.call('/sell/orders', { method: 'POST', key: seller.key, body: saleBody });
  if (sold.status !== 201) throw new Error(`sell order: ${sold.text}`);
  await advance(t, 5);
  sale = { quoteId: quote.quote_id, orderId: sold.body.id, body: saleBody };
  hook = await webhookWithDelivery();
});

/** An endpoint of the funded account, and a delivery to it that failed (the receiver answered 500). */
async function webhookWithDelivery(): Promise<typeof hook> {
  receiver.answer(() => ({ status: 500, body: 'down' }));
  const { id } = await register(t, funded, `${receiver.origin}/replay`);
  const tested = await t.call(`/webhooks/${id}/test`, { method: 'POST', key: funded });
  if (tested.status !== 200) throw new Error(`webhook test: ${tested.text}`);
  const [listing] = await listingsFor(t, funded, { delivery: 'instant' });
  const body = { listing_ids: [listing?.id], custom_id: 'replay-order-hook' };
  if ((await t.call('/orders', { method: 'POST', key: funded, body })).status !== 201)
    throw new Error('order');
  // Its first attempt answered 500: the delivery waits for the ladder's next step, pending.
  const delivery = await until(async () => {
    const [last] = (await t.call(`/webhooks/${id}/deliveries`, { key: funded })).body.data;
    return last?.response_status === 500 ? last : undefined;
  });
  receiver.answer(() => ({ status: 200, body: 'ok' }));
  return { id, deliveryId: delivery.delivery_id };
}

/** A seller with two copies of an item, its inventory read ready, and the first copy listed. */
async function p2pSeller(name: string): Promise<typeof p2p> {
  const seller = await t.account({ balance_usd: 0 });
  const granted = await t.sandbox(`/accounts/${seller.accountId}/inventory`, {
    market_hash_name: name,
    count: 2,
  });
  if (granted.status !== 201) throw new Error(`grant: ${granted.text}`);
  await t.call('/p2p/inventory', { key: seller.key });
  await t.sandbox('/clock', { advance_seconds: 5 });
  const rows = (await t.call('/p2p/inventory', { key: seller.key })).body.data;
  const bodies = rows.map((r: Record<string, unknown>) => ({
    operational_asset_id: r.operational_asset_id,
    asset_revision: r.asset_revision,
    price_usd: 100,
  }));
  const headers = { 'idempotency-key': 'replay-p2p-first' };
  const listed = await t.call('/p2p/listings', { method: 'POST', key: seller.key, body: bodies[0], headers });
  if (listed.status !== 201) throw new Error(`p2p: ${listed.text}`);
  return { key: seller.key, listingId: listed.body.id, bodies };
}
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** A request per operation that succeeds (by operationId); a new operation adds one here. */
const SUCCESSES: Record<string, () => Promise<unknown>> = {
  getHealth: () => replay('/health'),
  getGames: () => replay('/games', { key: funded }),
  getListings: () => replay('/listings?limit=5&sort=price_asc&min_price=0.5', { key: funded }),
  getPrices: () => replay('/prices?limit=3', { key: funded }),
  getPublicPrices: () => replay('/public/prices?appId=570&limit=2'),
  getCurrency: () => replay('/currency', { key: funded }),
  streamListings: () => replay('/listings/stream?min_price=1', { key: funded }),
  getPriceSnapshot: async () => {
    const full = await replay('/prices/snapshot.ndjson.gz', { key: funded });
    await replay('/prices/snapshot.ndjson.gz', {
      key: funded,
      headers: { 'if-none-match': full.headers.get('etag') ?? '' },
    });
  },
  getBalance: () => replay('/balance', { key: funded }),
  getTransactions: () => replay('/transactions?limit=5', { key: funded }),
  // The order placed before the tests, sent again with its key: the stored 201 is replayed.
  createOrder: () => replay('/orders', { method: 'POST', key: funded, body: trading.body }),
  listOrders: () => replay('/orders?limit=5', { key: funded }),
  getOrderByCustomId: () => replay(`/orders/info?custom_id=${trading.customId}`, { key: funded }),
  getOrder: () => replay(`/orders/${trading.orderId}`, { key: funded }),
  claimOrder: () => replay(`/orders/${trading.orderId}/claim`, { method: 'POST', key: funded }),
  getP2PInventory: () => replay('/p2p/inventory', { key: p2p.key }),
  publishP2PListings: async () => {
    const headers = { 'idempotency-key': 'replay-p2p-second' };
    await replay('/p2p/listings', { method: 'POST', key: p2p.key, body: p2p.bodies[1], headers });
    await replay('/p2p/listings', { method: 'POST', key: p2p.key, body: { items: p2p.bodies }, headers });
  },
  listP2PListings: () => replay('/p2p/listings?limit=5', { key: p2p.key }),
  repriceP2PListing: () =>
    replay(`/p2p/listings/${p2p.listingId}`, { method: 'PATCH', key: p2p.key, body: { price_usd: 120 } }),
  delistP2PListing: () => replay(`/p2p/listings/${p2p.listingId}`, { method: 'DELETE', key: p2p.key }),
  getSellStatus: () => replay('/sell/status', { key: seller.key }),
  createSellQuote: () =>
    replay('/sell/quotes', { method: 'POST', key: seller.key, body: { trade_url: seller.tradeUrl } }),
  createSellOrder: () => replay('/sell/orders', { method: 'POST', key: seller.key, body: sale.body }),
  listSellOrders: () => replay('/sell/orders?limit=5', { key: seller.key }),
  getSellOrder: () => replay(`/sell/orders/${sale.orderId}`, { key: seller.key }),
  postWebhooks: () =>
    replay('/webhooks', { method: 'POST', key: funded, body: { url: `${receiver.origin}/second` } }),
  patchWebhooksById: () =>
    replay(`/webhooks/${hook.id}`, { method: 'PATCH', key: funded, body: { description: 'replayed' } }),
  postWebhooksByIdTest: () => replay(`/webhooks/${hook.id}/test`, { method: 'POST', key: funded }),
  postWebhooksByIdRotateSecret: () =>
    replay(`/webhooks/${hook.id}/rotate-secret`, { method: 'POST', key: funded }),
  getWebhooksByIdDeliveries: () => replay(`/webhooks/${hook.id}/deliveries?limit=5`, { key: funded }),
  postWebhooksByIdDeliveriesByDeliveryIdRetry: () =>
    replay(`/webhooks/${hook.id}/deliveries/${hook.deliveryId}/retry`, { method: 'POST', key: funded }),
  deleteWebhooksById: async () => {
    const { id } = await register(t, funded, `${receiver.origin}/third`);
    await replay(`/webhooks/${id}`, { method: 'DELETE', key: funded });
  },
  buyForTradeUrl: async () => {
    const { trade_url } = (await t.sandbox('/trade-urls/123457')).body;
    const [listing] = await listingsFor(t, funded, { delivery: 'instant' });
    await replay('/market/buy', {
      method: 'POST',
      key: funded,
      body: { listing_ids: [listing?.id], trade_url },
    });
  },
};

/** A keyed GET without required parameters, for an operation without a request in SUCCESSES. */
function plainGet(operation: Operation): (() => Promise<unknown>) | undefined {
  const required = (operation.spec.parameters ?? []).some((p: { required?: boolean }) => p.required);
  if (operation.method !== 'GET' || required) return undefined;
  return () => replay(operation.path, { key: funded });
}

/** Operations whose only success response is documented as never sent. */
const NEVER_SUCCEEDS = new Set(['postWithdrawals']);

describe('real responses replayed through the OpenAPI document', () => {
  it('match the document on the success of every operation', async () => {
    for (const operation of operationsOf(doc))
      await (SUCCESSES[operation.operationId] ?? plainGet(operation))?.();
    expect(problems).toEqual([]);
  });

  it('match the document on refusals of input, key, funds, state and method', async () => {
    const unfunded = (await t.account({ balance_usd: 0, trading: true })).key;
    const reader = (await t.account({ balance_usd: 100, trading: false })).key;
    const elsewhere = (await t.account({ balance_usd: 100, ip_allowlist: ['10.0.0.1'] })).key;
    await replay('/games');
    await replay('/games', { key: 'svc_pub_unknown' });
    await replay('/currency', { key: elsewhere });
    await replay('/listings?limit=0', { key: funded });
    await replay('/listings?limit=abc', { key: funded });
    await replay('/listings/stream?min_price=abc', { key: funded });
    await replay('/prices', { key: unfunded });
    await replay('/prices?appId=570&wear=Field-Tested', { key: funded });
    await replay('/public/prices?limit=0');
    await replay('/prices/snapshot.ndjson.gz', { key: funded });
    await replay('/balance', { key: 'no-prefix' });
    await replay('/transactions?from=10&to=5', { key: funded });
    await replay('/orders', { method: 'POST', key: funded, body: { listing_ids: 'x' } });
    await replay('/orders', { method: 'POST', key: reader, body: { listing_ids: ['a'] } });
    await replay('/orders', { method: 'POST', key: unfunded, body: { listing_ids: ['cs2-missing'] } });
    await replay('/orders', { method: 'POST', key: funded, body: { ...trading.body, max_price_usd: 1000 } });
    await replay('/orders?limit=0', { key: funded });
    await replay('/orders/info?custom_id=none', { key: funded });
    await replay('/orders/missing-order', { key: funded });
    await replay('/orders/missing-order/claim', { method: 'POST', key: funded });
    const tooLong = await replay(`/orders/${'x'.repeat(201)}`, { key: funded });
    expect(tooLong.body.code).toBe('invalid_param');
    const undecodable = await replay('/orders/%E0%A4%A/claim', { method: 'POST', key: funded });
    expect(undecodable.body.code).toBe('invalid_param');
    await replay('/market/buy', {
      method: 'POST',
      key: funded,
      body: { listing_ids: ['a'], trade_url: 'https://example.invalid/' },
    });
    await replay('/withdrawals', { method: 'POST', key: funded });
    await replay('/p2p/listings', { method: 'POST', key: p2p.key, body: p2p.bodies[0] });
    await replay('/p2p/listings', {
      method: 'POST',
      key: p2p.key,
      body: { ...p2p.bodies[0], price_usd: 101 },
      headers: { 'idempotency-key': 'replay-p2p-first' },
    });
    await replay('/p2p/listings/p2p_missing', { method: 'PATCH', key: p2p.key, body: { price_usd: 1 } });
    await replay('/p2p/listings?status=gone', { key: p2p.key });
    await replay('/sell/quotes', { method: 'POST', key: funded, body: { trade_url: 'x' } });
    await replay('/sell/quotes', { method: 'POST', key: seller.key, body: { trade_url: 'https://x/' } });
    await replay('/sell/quotes', { method: 'POST', key: seller.key, body: { asset_ids: 'all' } });
    const pending = await createSeller(t);
    await replay('/sell/quotes', { method: 'POST', key: pending.key, body: { trade_url: pending.tradeUrl } });
    await replay('/sell/orders', { method: 'POST', key: seller.key, body: { quote_id: sale.quoteId } });
    await replay('/sell/orders', { method: 'POST', key: seller.key, body: { quote_id: 'sq_missing' } });
    await replay('/sell/orders', {
      method: 'POST',
      key: seller.key,
      body: { ...sale.body, min_total_usd: 1 },
    });
    await replay('/sell/orders?status=nope', { key: seller.key });
    await replay('/sell/orders/so_missing', { key: seller.key });
    await replay('/sell/orders', { key: funded });
    expect(problems).toEqual([]);
  });

  it('match the document on 429 rate_limit_exceeded, with Retry-After', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    let last: TestResponse | undefined;
    for (let i = 0; i < 101 && last?.status !== 429; i++) last = await replay('/balance', { key });
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('match the document on 401 too_many_failed_auth on every operation during a ban', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    for (let i = 0; i < 31; i++) await t.call('/balance', { headers, key: `svc_pub_bad${i}` });
    for (const operation of operationsOf(doc)) {
      const path = operation.path.replace(/\{[^}]+\}/g, 'x');
      const response = await replay(path, { method: operation.method, key: funded, headers });
      expect(response.status, nameOf(operation)).toBe(401);
      expect(response.headers.get('retry-after'), nameOf(operation)).toMatch(/^\d+$/);
    }
    expect(problems).toEqual([]);
  });

  it('refuses what the document does not describe (the check can fail)', async () => {
    const strict = structuredClone(doc);
    strict.components.schemas.Balance.required.push('not_a_field');
    delete strict.paths['/withdrawals'].post.responses['501'];
    strict.paths['/prices/snapshot.ndjson.gz'].get.responses['304'].content = {
      'application/gzip': { schema: { type: 'string' } },
    };
    const strictChecker = new ResponseChecker(strict);
    const check = async (path: string, init: Call & { method?: string } = {}) => {
      const operation = strictChecker.find(init.method ?? 'GET', path);
      if (!operation) throw new Error(path);
      return strictChecker.problems(operation, await t.call(path, init));
    };
    expect(await check('/balance', { key: funded })).toEqual([
      expect.stringContaining("must have required property 'not_a_field'"),
    ]);
    expect(await check('/withdrawals', { method: 'POST', key: funded })).toEqual([
      expect.stringContaining('status not documented'),
    ]);
    const etag = (await t.call('/prices/snapshot.ndjson.gz', { key: funded })).headers.get('etag') ?? '';
    expect(
      await check('/prices/snapshot.ndjson.gz', { key: funded, headers: { 'if-none-match': etag } }),
    ).toEqual([expect.stringContaining('media type (none) not documented')]);
  });

  it('covers a success of every operation it has a request for, and a client error of every operation', () => {
    const missing = operationsOf(doc).flatMap((operation: Operation) => {
      const classes = replayed.get(nameOf(operation)) ?? new Set();
      const gaps: string[] = [];
      if (SUCCESSES[operation.operationId] && !classes.has('2xx'))
        gaps.push(`${nameOf(operation)}: its request did not succeed`);
      if (!classes.has('4xx')) gaps.push(`${nameOf(operation)}: no client error replayed`);
      return gaps;
    });
    expect(missing).toEqual([]);
    // An operation added without a request here is still replayed in its refusals (the ban) and
    // exercised by openapi-property.int.test.ts; it is named so that its success gets a request.
    const unreplayed = operationsOf(doc)
      .filter((o) => !NEVER_SUCCEEDS.has(o.operationId) && !replayed.get(nameOf(o))?.has('2xx'))
      .map((o) => `${nameOf(o)} (${o.operationId})`);
    if (unreplayed.length > 0)
      console.warn(`no success replayed; add to SUCCESSES: ${unreplayed.join(', ')}`);
  });
});
