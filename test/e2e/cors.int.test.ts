/** CORS: a configured browser origin gets the headers on reads, the stream and preflights; any other origin gets none. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const ALLOWED = 'https://dash.example.com';
const OTHER = 'https://elsewhere.example.org';

describe('CORS', () => {
  let t: TestService;
  let key: string;
  beforeAll(async () => {
    t = await startTestService({ listings: 50, corsOrigins: [ALLOWED] });
    ({ key } = await t.account());
  });
  afterAll(() => t.close());

  it('answers an allowed origin with its headers, and exposes the headers clients read', async () => {
    const res = await t.call('/listings?limit=1', { key, headers: { origin: ALLOWED } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });

  it('gives another origin no CORS headers', async () => {
    const res = await t.call('/listings?limit=1', { key, headers: { origin: OTHER } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight of POST /orders for the allowed origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.baseUrl}/orders`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,idempotency-key',
        },
      });
    const allowed = await preflight(ALLOWED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
    expect((await preflight(OTHER)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends the headers on the listing stream too', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.baseUrl}/listings/stream`, {
      headers: { authorization: `Bearer ${key}`, origin: ALLOWED },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    controller.abort();
  });
});

describe('without --cors-origins', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 20 });
  });
  afterAll(() => t.close());

  it('sends no CORS headers to any origin', async () => {
    const res = await t.call('/health', { headers: { origin: ALLOWED } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
