import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;
let keyId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestService({ trustProxy: ['127.0.0.1'], listings: 100 });
  ({ key, keyId, accountId } = await t.account());
});
afterAll(() => t.close());

/** Each test speaks from its own forwarded address so bans do not leak between tests. */
let nextHost = 1;
function fromNewAddress(): Record<string, string> {
  return { 'x-forwarded-for': `198.51.100.${nextHost++}` };
}

describe('authentication', () => {
  it('answers /health without a key', async () => {
    const res = await t.call('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it.each([
    ['no key at all', {}],
    ['a key without the svc_pub_ prefix', { authorization: 'Bearer sk_live_abcdef' }],
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 missing_api_key for %s', async (_, headers) => {
    const res = await t.call('/balance', { headers: { ...headers, ...fromNewAddress() } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('missing_api_key');
    expect(typeof res.body.detail).toBe('string');
  });

  it('answers 401 invalid_api_key for an unknown key with the right prefix', async () => {
    const forged = `${key.slice(0, -4)}AAAA`;
    const res = await t.call('/balance', { key: forged, headers: fromNewAddress() });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('accepts the key in the api_key query parameter', async () => {
    const res = await t.call(`/balance?api_key=${encodeURIComponent(key)}`);
    expect(res.status).toBe(200);
    expect(res.body.balance_usd).toBe(100);
  });

  it('prefers the header over the query parameter', async () => {
    const res = await t.call('/balance?api_key=svc_pub_bogus', { key });
    expect(res.status).toBe(200);
  });

  it('stores only the SHA-256 of keys, never the raw key', async () => {
    const rows = await t.service.context.db.all<Record<string, unknown>>('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(21));
    const mine = rows.find((r) => r.id === keyId);
    expect(mine?.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('answers 401 invalid_api_key once a key is revoked', async () => {
    const created = await t.sandbox(`/accounts/${accountId}/keys`, { label: 'temp' });
    expect(created.status).toBe(201);
    expect((await t.call('/balance', { key: created.body.api_key })).status).toBe(200);
    const revoked = await t.sandbox(`/keys/${created.body.key_id}`, undefined, 'DELETE');
    expect(revoked.body.revoked_at).not.toBeNull();
    const res = await t.call('/balance', { key: created.body.api_key, headers: fromNewAddress() });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });
});

describe('IP allowlist', () => {
  it('answers 403 ip_not_allowed quoting the seen address', async () => {
    const { key: limited } = await t.account({ ip_allowlist: ['10.0.0.0/8'] });
    const res = await t.call('/balance', { key: limited });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'ip_not_allowed', ip: '127.0.0.1' });
    expect(res.body.detail).toContain('127.0.0.1');
  });

  it.each([
    ['an IPv4 CIDR', ['203.0.113.0/24'], '203.0.113.9', 200],
    ['a single IPv4 address', ['203.0.113.9'], '203.0.113.9', 200],
    ['an IPv6 CIDR', ['2001:db8::/32'], '2001:db8::5', 200],
    ['an IPv6 CIDR, from outside it', ['2001:db8::/32'], '2001:db9::5', 403],
    ['an IPv4 CIDR, from an IPv6 address', ['203.0.113.0/24'], '2001:db8::5', 403],
  ])('matches %s', async (_, allowlist, address, status) => {
    const { key: limited } = await t.account({ ip_allowlist: allowlist });
    const res = await t.call('/balance', { key: limited, headers: { 'x-forwarded-for': address } });
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body.ip).toBe(address);
  });

  it('refuses a malformed CIDR when the key is made', async () => {
    const res = await t.sandbox('/accounts', { ip_allowlist: ['10.0.0.0/99'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
  });
});

describe('failed-auth ban', () => {
  it('bans an address after more than 30 bad keys in a minute, for exactly 5 minutes', async () => {
    const headers = fromNewAddress();
    for (let i = 0; i < 30; i++) {
      const res = await t.call('/balance', { headers, key: `svc_pub_bad${i}` });
      expect(res.body.code).toBe('invalid_api_key');
    }
    const trigger = await t.call('/balance', { headers });
    expect(trigger.status).toBe(401);
    expect(trigger.body.code).toBe('too_many_failed_auth');
    const good = await t.call('/balance', { key, headers });
    expect(good.body.code).toBe('too_many_failed_auth');
    expect((await t.call('/health', { headers })).body.code).toBe('too_many_failed_auth');
    // Every request from the address, a path no route serves included (in /v1 and outside it).
    const nowhere = await t.call('/no-such-path', { headers });
    expect([nowhere.status, nowhere.body.code]).toEqual([401, 'too_many_failed_auth']);
    const outside = await fetch(`${t.origin}/no-such-path`, { headers });
    expect([outside.status, ((await outside.json()) as { code: string }).code]).toEqual([
      401,
      'too_many_failed_auth',
    ]);
    expect((await t.call('/no-such-path', { headers: fromNewAddress() })).status).toBe(404);
    t.clock.advance(299_000);
    expect((await t.call('/balance', { key, headers })).body.code).toBe('too_many_failed_auth');
    t.clock.advance(1_000);
    expect((await t.call('/balance', { key, headers })).status).toBe(200);
  });

  it('does not let a valid request reset the count', async () => {
    const headers = fromNewAddress();
    for (let i = 0; i < 20; i++) await t.call('/balance', { headers });
    expect((await t.call('/balance', { key, headers })).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect((await t.call('/balance', { headers })).body.code).toBe('missing_api_key');
    expect((await t.call('/balance', { headers })).body.code).toBe('too_many_failed_auth');
  });

  it('counts failures over a rolling minute only', async () => {
    const headers = fromNewAddress();
    for (let i = 0; i < 30; i++) await t.call('/balance', { headers });
    t.clock.advance(61_000);
    for (let i = 0; i < 30; i++)
      expect((await t.call('/balance', { headers })).body.code).toBe('missing_api_key');
    expect((await t.call('/balance', { headers })).body.code).toBe('too_many_failed_auth');
  });

  it('believes X-Forwarded-For only from a configured proxy', async () => {
    const direct = await startTestService({ listings: 10 });
    try {
      const res = await direct.call('/balance', { headers: { 'x-forwarded-for': '203.0.113.50' } });
      const { key: limited } = await direct.account({ ip_allowlist: ['203.0.113.50'] });
      const spoofed = await direct.call('/balance', {
        key: limited,
        headers: { 'x-forwarded-for': '203.0.113.50' },
      });
      expect(res.body.code).toBe('missing_api_key');
      expect(spoofed.status).toBe(403);
      expect(spoofed.body.ip).toBe('127.0.0.1');
    } finally {
      await direct.close();
    }
  });
});
