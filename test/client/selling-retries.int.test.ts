/**
 * The retry rules of the selling writes against a scripted loopback server, where each failure can
 * be made exactly: the key a publish carries on every attempt, a 409 thrown at once, external_id
 * kept in the body with no header, and the writes that are never retried.
 */
import { describe, expect, it } from 'vitest';
import { ClientArgumentError } from '../../src/client/index.js';
import type { P2PListing } from '../../src/contract/p2p.js';
import type { SellOrder } from '../../src/contract/sell.js';
import { json, refusalOf, reset, scriptedClient } from './scripted-server.js';

const AT = '2026-11-23T12:00:00.000Z';

const LISTING: P2PListing = {
  id: 'pl_1',
  status: 'active',
  price_usd: 25,
  commission_usd: 1.25,
  seller_payout_usd: 23.75,
  asset_id: '41',
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  needs_resync: false,
  order_id: null,
  trade_offer_id: null,
  end_reason: null,
  created_at: AT,
  updated_at: AT,
};

const SELL_ORDER: SellOrder = {
  id: 'so_1',
  external_id: 'bot-order-1',
  quote_id: 'sq_1',
  app_id: 730,
  steam_id: '76561198000000001',
  status: 'pending',
  currency: 'USD',
  total_usd: 8.8,
  credited_usd: 0,
  settled_usd: 0,
  settles_at: null,
  failure_reason: null,
  items: [],
  offers: [],
  created_at: AT,
  updated_at: AT,
};

const ITEM = { operational_asset_id: '730_41', asset_revision: 'r'.repeat(16), price_usd: 25 };
const UNAVAILABLE = json(503, { code: 'market_unavailable', detail: 'down' });

describe('selling writes and their retries', () => {
  it('sends a publish again with the same Idempotency-Key after a 500, and reports the replay', async () => {
    const { client, requests } = await scriptedClient([
      json(500, { code: 'internal_error', detail: 'boom' }),
      json(200, LISTING, { 'idempotent-replay': 'true' }),
    ]);
    expect(await client.p2p.publish(ITEM, { idempotencyKey: 'publish-key-1' })).toEqual({
      listing: LISTING,
      replayed: true,
    });
    expect(requests.map((r) => [r.method, r.url, r.headers['idempotency-key'], r.body])).toEqual([
      ['POST', '/v1/p2p/listings', 'publish-key-1', JSON.stringify(ITEM)],
      ['POST', '/v1/p2p/listings', 'publish-key-1', JSON.stringify(ITEM)],
    ]);
  });

  it('retries a publish after a reset connection and a 429, never after a 409', async () => {
    const { client, requests, sleeps } = await scriptedClient([
      reset,
      json(429, { code: 'rate_limit_exceeded', detail: 'slow down' }, { 'retry-after': '3' }),
      json(409, { code: 'idempotency_in_progress', detail: 'still running' }),
      json(201, LISTING),
    ]);
    expect(await refusalOf(client.p2p.publish(ITEM, { idempotencyKey: 'publish-key-2' }))).toEqual([
      409,
      'idempotency_in_progress',
    ]);
    expect(requests).toHaveLength(3);
    expect(sleeps[1]).toBe(3000);
  });

  it('throws a 422 of a batch at once', async () => {
    const { client, requests } = await scriptedClient([
      json(422, { code: 'price_below_market', detail: 'too low', market_usd: 10, floor_usd: 5 }),
    ]);
    expect(await refusalOf(client.p2p.publishBatch([ITEM], { idempotencyKey: 'batch-key-1' }))).toEqual([
      422,
      'price_below_market',
    ]);
    expect(requests.map((r) => r.body)).toEqual([JSON.stringify({ items: [ITEM] })]);
  });

  it('refuses an Idempotency-Key outside 8-128 characters before sending', async () => {
    const { client, requests } = await scriptedClient([json(201, LISTING)]);
    await expect(client.p2p.publish(ITEM, { idempotencyKey: 'short' })).rejects.toThrow(ClientArgumentError);
    expect(requests).toEqual([]);
  });

  it('keeps external_id in the body, sends no Idempotency-Key, and sends the order again unchanged after a 503', async () => {
    const { client, requests } = await scriptedClient([
      UNAVAILABLE,
      json(200, SELL_ORDER, { 'idempotent-replay': 'true' }),
    ]);
    const body = { quote_id: 'sq_1', external_id: 'bot-order-1' };
    expect(await client.instantSell.createOrder(body)).toEqual(SELL_ORDER);
    expect(requests.map((r) => [r.url, r.headers['idempotency-key'], r.body])).toEqual([
      ['/v1/sell/orders', undefined, JSON.stringify(body)],
      ['/v1/sell/orders', undefined, JSON.stringify(body)],
    ]);
  });

  it.each([
    ['a sell order without external_id', (c: Client) => c.instantSell.createOrder({ quote_id: 'sq_1' })],
    ['a quote', (c: Client) => c.instantSell.quote({ trade_url: 'https://example.com/t' })],
    ['a reprice', (c: Client) => c.p2p.reprice('pl_1', 30)],
    ['an unlist', (c: Client) => c.p2p.unlist('pl_1')],
    ['a webhook test', (c: Client) => c.webhooks.test('wh_1')],
    ['a webhook update', (c: Client) => c.webhooks.update('wh_1', { enabled: true })],
  ])('never retries %s, even after a 503', async (_what, call) => {
    const { client, requests } = await scriptedClient([UNAVAILABLE, json(200, {})]);
    expect(await refusalOf(call(client))).toEqual([503, 'market_unavailable']);
    expect(requests).toHaveLength(1);
  });

  it('sends PATCH and DELETE with their paths escaped', async () => {
    const { client, requests } = await scriptedClient([
      json(200, LISTING),
      json(200, { id: 'pl/1', deleted: true }),
    ]);
    await client.p2p.reprice('pl/1', 30);
    expect(await client.p2p.unlist('pl/1')).toEqual({ id: 'pl/1', deleted: true });
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['PATCH', '/v1/p2p/listings/pl%2F1', JSON.stringify({ price_usd: 30 })],
      ['DELETE', '/v1/p2p/listings/pl%2F1', ''],
    ]);
  });
});

type Client = Awaited<ReturnType<typeof scriptedClient>>['client'];
