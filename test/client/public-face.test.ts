/**
 * The client's public face, as stripe-node's: resources only on the client (one per area of the
 * API), and an index that exports what a user needs, not the transport, the budget or the retry policy.
 */
import { afterAll, describe, expect, it } from 'vitest';
import * as client from '../../src/client/index.js';

// Nothing listens here and nothing is sent: the test reads the client's shape only.
const market = new client.MarketClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'svc_pub_test' });
afterAll(() => market.close());

/** The methods of an object's class, without the constructor. */
function methodsOf(value: object): string[] {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(value))
    .filter((name) => name !== 'constructor')
    .sort();
}

describe('MarketClient', () => {
  it('is resources only, beside its base URL and close()', () => {
    expect(methodsOf(market)).toEqual(['close']);
    expect(Object.keys(market).sort()).toEqual([
      'account',
      'baseUrl',
      'info',
      'instantSell',
      'lenient',
      'listings',
      'orders',
      'p2p',
      'prices',
      'transport',
      'webhooks',
    ]);
  });

  it.each([
    ['info', ['currency', 'games', 'health']],
    ['listings', ['all', 'list', 'listRaw', 'pages', 'streamFetch']],
    ['prices', ['all', 'list', 'pages', 'snapshot']],
    ['account', ['allTransactions', 'balance', 'transactionPages', 'transactions']],
    [
      'orders',
      ['all', 'claim', 'create', 'findByCustomId', 'get', 'getByCustomId', 'list', 'marketBuy', 'pages'],
    ],
  ] as const)('groups the %s calls in one resource', (resource, methods) => {
    const area = market[resource] as object;
    expect(methodsOf(area).filter((m) => !m.startsWith('place'))).toEqual(methods);
  });

  it('reads one area per resource: the P2P listings and sell orders live in p2p and instantSell alone', () => {
    expect('p2pListings' in market).toBe(false);
    expect('sellOrders' in market).toBe(false);
    expect(typeof market.p2p.listings).toBe('function');
    expect(typeof market.instantSell.orders).toBe('function');
  });
});

describe('the client index', () => {
  it('exports what a user needs and none of the internals', () => {
    const exported = Object.keys(client);
    for (const internal of [
      'Transport',
      'claimBudget',
      'KeyBudget',
      'decideRetry',
      'backoffMs',
      'RollingWindow',
    ])
      expect(exported).not.toContain(internal);
    for (const needed of [
      'MarketClient',
      'ApiError',
      'isApiError',
      'isTransient',
      'verifyWebhook',
      'paginate',
    ])
      expect(exported).toContain(needed);
  });
});
