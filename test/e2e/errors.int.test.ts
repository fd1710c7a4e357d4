import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 50 });
  ({ key } = await t.account());
});
afterAll(() => t.close());

describe('error responses', () => {
  it.each([
    ['/v1/listings', 'DELETE', 'GET, HEAD'],
    ['/v1/orders/ord_730_x/claim', 'GET', 'POST'],
    ['/v1/orders', 'PUT', 'GET, HEAD, POST'],
  ])('answers 405 method_not_allowed with Allow for %s %s', async (path, method, allow) => {
    const res = await fetch(`${t.origin}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(await res.json()).toEqual({ code: 'method_not_allowed', detail: expect.any(String) });
  });

  it.each([
    ['/v1/health', 'QUERY', 'GET, HEAD'],
    ['/v1/orders', 'QUERY', 'GET, HEAD, POST'],
    ['/v1/webhooks/wh_x', 'PROPFIND', 'DELETE, PATCH'],
  ])(
    'answers a method the server has no route for at all, %s %s, with 405 and Allow',
    async (path, method, allow) => {
      const res = await fetch(`${t.origin}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(await res.json()).toEqual({ code: 'method_not_allowed', detail: expect.any(String) });
    },
  );

  it.each([
    ['/v1/nope', 'GET'],
    ['/nope', 'GET'],
    ['/v1/orders/a/b/c', 'GET'],
    ['/', 'GET'],
  ])('answers 404 not_found in the error shape for %s %s', async (path, method) => {
    const res = await fetch(`${t.origin}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { code: string };
    expect(res.status).toBe(404);
    expect(body).toEqual({ code: 'not_found', detail: expect.any(String) });
  });

  it('answers a malformed JSON body with 400 invalid_request', async () => {
    const res = await fetch(`${t.origin}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"balance_usd": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_request');
  });

  it.each([
    ['a 20 kB query string', `/v1/listings?search=${'x'.repeat(20_000)}`, {}],
    ['a 20 kB header', '/v1/health', { 'x-padding': 'y'.repeat(20_000) }],
  ])('answers %s with 431 in the error shape', async (_label, path, headers) => {
    const res = await fetch(`${t.origin}${path}`, { headers });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ code: 'headers_too_large', detail: expect.any(String) });
  });

  it.each([
    [
      'a body over 1 MiB',
      'application/json',
      JSON.stringify({ label: 'x'.repeat(1_100_000) }),
      413,
      'body_too_large',
    ],
    [
      'a body of a media type it does not take',
      'application/xml',
      '<account/>',
      415,
      'unsupported_media_type',
    ],
  ])('answers %s with its status in the error shape', async (_label, type, body, status, code) => {
    const res = await fetch(`${t.origin}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ code, detail: expect.any(String) });
  });

  it('names a problem of the whole body once ("body: …")', async () => {
    const res = await t.sandbox('/accounts', [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body: /);
  });

  it.each([
    ['/accounts', { balance_usd: 1, foo: 1 }],
    ['/clock', { advance_seconds: 0, foo: 1 }],
    ['/simulator', { paused: true, foo: 1 }],
  ])('refuses an unknown field on the sandbox body of %s, as on every body', async (path, body) => {
    const res = await t.sandbox(path, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.detail).toContain('unknown field foo');
  });

  it('answers a body of the wrong type with 400 invalid_request naming the field', async () => {
    const res = await t.sandbox('/accounts', { balance_usd: 'lots' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.detail).toContain('balance_usd');
  });

  it('answers an unexpected failure with a generic 500 that discloses nothing', async () => {
    const fx = t.service.context.fx;
    const original = fx.current.bind(fx);
    fx.current = () => {
      throw new Error('secret internal state at /srv/db');
    };
    try {
      const res = await t.call('/currency', { key });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'internal_error', detail: expect.any(String) });
      expect(res.text).not.toContain('secret');
      expect(res.text).not.toContain('at ');
    } finally {
      fx.current = original;
    }
  });
});

describe('sandbox', () => {
  it('creates an account with a balance and a trading key', async () => {
    const res = await t.sandbox('/accounts', { balance_usd: 100, trading: true });
    expect(res.status).toBe(201);
    expect(res.body.account_id).toMatch(/^acc_/);
    expect(res.body.api_key).toMatch(/^svc_pub_/);
    const balance = await t.call('/balance', { key: res.body.api_key });
    expect(balance.body).toMatchObject({ balance_usd: 100, settled_usd: 100, trading_enabled: true });
    expect(balance.body.account_id).toBe(res.body.account_id);
  });

  it('funds a balance, settled or inside the reversal window, and writes the ledger', async () => {
    const { key: k, accountId } = await t.account({ balance_usd: 0 });
    expect((await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 12.34 })).status).toBe(200);
    await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 5, settled: false });
    const balance = await t.call('/balance', { key: k });
    expect(balance.body).toMatchObject({ balance_usd: 17.34, settled_usd: 12.34, pending_usd: 5 });
    const ledger = await t.call('/transactions', { key: k });
    expect(ledger.body.data.map((r: { amount_usd: number }) => r.amount_usd)).toEqual([5, 12.34]);
    expect(ledger.body.data[0]).toMatchObject({ type: 'deposit', balance_after_usd: 17.34, order_id: null });
  });

  it.each([
    ['an opening balance', { balance_usd: 0.001 }, 'balance_usd'],
    ['a settled part', { balance_usd: 10, settled_usd: 5.005 }, 'settled_usd'],
  ])('refuses %s in a fraction of a cent, as an order cap is', async (_label, body, field) => {
    const res = await t.sandbox('/accounts', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.detail).toMatch(new RegExp(`^body ${field}: .*whole cents`));
  });

  it('refuses a deposit in a fraction of a cent, and writes nothing', async () => {
    const { key: k, accountId } = await t.account({ balance_usd: 0 });
    const res = await t.sandbox(`/accounts/${accountId}/fund`, { amount_usd: 0.005 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body amount_usd: .*whole cents/);
    expect((await t.call('/balance', { key: k })).body.balance_usd).toBe(0);
    expect((await t.call('/transactions', { key: k })).body.data).toEqual([]);
  });

  it('rebuilds the price list when posted with a JSON content type and no body, as the README shows', async () => {
    const res = await fetch(`${t.origin}/sandbox/prices/rebuild`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ generated_at: expect.any(String), groups: expect.any(Number) });
  });

  it.each(['application/json', 'text/plain;charset=UTF-8'])(
    'takes an empty %s body as no body where the route takes none, not where it takes one',
    async (type) => {
      const post = (path: string) =>
        fetch(`${t.origin}${path}`, { method: 'POST', headers: { 'content-type': type }, body: '' });
      expect((await post('/sandbox/prices/rebuild')).status).toBe(200);
      const refused = await post('/sandbox/accounts');
      expect(refused.status).toBe(type === 'application/json' ? 400 : 415);
    },
  );

  it('moves the clock forward and refuses to move it back', async () => {
    const before = await t.sandbox('/clock');
    const after = await t.sandbox('/clock', { advance_seconds: 3600 });
    expect(Date.parse(after.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(3_600_000);
    expect((await t.sandbox('/clock', { advance_seconds: -5 })).body.code).toBe('invalid_request');
  });

  it('answers 404 for an unknown account', async () => {
    const res = await t.sandbox('/accounts/acc_nope/fund', { amount_usd: 1 });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('does not exist without --sandbox', async () => {
    const plain = await startTestService({ sandbox: false, listings: 10 });
    try {
      const res = await fetch(`${plain.origin}/sandbox/accounts`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('not_found');
    } finally {
      await plain.close();
    }
  });
});
