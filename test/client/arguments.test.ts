import { afterAll, describe, expect, it } from 'vitest';
import { ClientArgumentError, isClientArgumentError, MarketClient } from '../../src/client/index.js';

// Nothing listens here: every call below must be refused before a request is sent.
const client = new MarketClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'svc_pub_test', maxRetries: 0 });
afterAll(() => client.close());

/** Calls made the way a newcomer's first script gets them wrong. */
const wrongCalls: [string, () => unknown, RegExp][] = [
  [
    'orders.create without its options',
    () => (client.orders as any).create({ listing_ids: ['x'] }),
    /orders\.create: the second argument must be \{ idempotencyKey: string \}.*got nothing; e\.g\. client\.orders\.create/,
  ],
  [
    'orders.create with no body',
    () => (client.orders as any).create(undefined, { idempotencyKey: 'k' }),
    /orders\.create: body must be an object, got nothing/,
  ],
  [
    'orders.marketBuy with a string key',
    () => (client.orders as any).marketBuy({}, 'key'),
    /orders\.marketBuy: the second argument must be \{ idempotencyKey: string \}.*got the string "key"/,
  ],
  [
    'orders.get without an id',
    () => (client.orders as any).get(),
    /orders\.get: id must be a non-empty string, got nothing/,
  ],
  [
    'orders.get with a game name',
    () => (client.orders as any).get('ord_1', 'cs2'),
    /orders\.get: appId must be a game's app id/,
  ],
  [
    'orders.claim with a number id',
    () => (client.orders as any).claim(42),
    /orders\.claim: id must be a non-empty string, got number 42/,
  ],
  [
    'orders.create with a custom_id other than its key',
    () => client.orders.create({ listing_ids: ['x'], custom_id: 'a' }, { idempotencyKey: 'b' }),
    /orders\.create: custom_id and the idempotency key differ/,
  ],
  [
    'orders.marketBuy with an empty key',
    () =>
      (client.orders as any).marketBuy({ market_hash_name: 'x', max_price_usd: 1 }, { idempotencyKey: '' }),
    /orders\.marketBuy: the idempotency key must be 1-128 characters, got 0/,
  ],
  [
    'p2p.publish with a short key',
    () => (client.p2p.publish as any)({ price_usd: 1 }, { idempotencyKey: 'short' }),
    /p2p\.publish: the idempotency key must be 8-128 characters, got 5/,
  ],
  [
    'listings.list with a string query',
    () => (client.listings as any).list('limit=2'),
    /listings\.list: query must be an object or left out/,
  ],
  [
    'account.transactions with an array',
    () => (client.account as any).transactions([]),
    /account\.transactions: query must be an object or left out, got an array/,
  ],
  [
    'p2p.publish without a key',
    () => (client.p2p.publish as any)({ price_usd: 1 }),
    /p2p\.publish: the second argument must be \{ idempotencyKey: string \}/,
  ],
  [
    'p2p.publishBatch with one item',
    () => (client.p2p.publishBatch as any)('x', { idempotencyKey: 'kkkkkkkk' }),
    /p2p\.publishBatch: items \(an array\) must be an object/,
  ],
  [
    'p2p.reprice with a string price',
    () => (client.p2p.reprice as any)('p2p_1', '12.50'),
    /p2p\.reprice: priceUsd must be a number/,
  ],
  [
    'instantSell.createOrder without a body',
    () => (client.instantSell.createOrder as any)(),
    /instantSell\.createOrder: body must be an object/,
  ],
  [
    'webhooks.create with a URL string',
    () => (client.webhooks.create as any)('https://x.example'),
    /webhooks\.create: body must be an object, got the string/,
  ],
  [
    'webhooks.retryDelivery without a delivery',
    () => (client.webhooks.retryDelivery as any)('we_1'),
    /webhooks\.retryDelivery: deliveryId must be a non-empty string/,
  ],
];

describe('MarketClient arguments', () => {
  it.each(wrongCalls)('refuses %s with a sentence naming the call', async (_name, call, message) => {
    let thrown: unknown;
    try {
      await call();
    } catch (error) {
      thrown = error;
    }
    expect(isClientArgumentError(thrown)).toBe(true);
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('refuses options without a base URL when it is made', () => {
    expect(() => new MarketClient({} as any)).toThrow(/new MarketClient: baseUrl must be an absolute URL/);
    expect(() => new (MarketClient as any)()).toThrow(/new MarketClient: options must be an object/);
  });

  it('refuses a budget that allows nothing, or other limits than the key already uses', () => {
    const made = (limits: object) => () =>
      new MarketClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'svc_pub_test', limits });
    for (const limits of [{ read: 0 }, { windowMs: -1 }, { concurrency: '8' }]) {
      expect(made(limits)).toThrow(ClientArgumentError);
      expect(made(limits)).toThrow(/new MarketClient: limits\.\w+ must be a number of at least 1/);
    }
    expect(made({ read: 5 })).toThrow(ClientArgumentError);
    expect(made({ read: 5 })).toThrow(/new MarketClient: another MarketClient of this key already uses/);
  });
});
