/**
 * Slow clients over a real socket: the service cuts a connection whose headers or body trickle, and
 * closes idle keep-alive connections (deadlines shortened here; the defaults are checked below).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slowClientOptions } from '../../src/shared/slow-clients.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { trickle } from '../helpers/trickle.js';

let t: TestService;
let port: number;

/** Far longer than the shortened deadlines, far shorter than Node's own (60 s headers, 300 s request). */
const GIVE_UP_MS = 8_000;

beforeAll(async () => {
  t = await startTestService({
    timeouts: { headersMs: 500, requestMs: 1_000, keepAliveMs: 500, checkEveryMs: 100 },
  });
  port = Number(new URL(t.origin).port);
});
afterAll(() => t?.close());

describe('slow clients of the service', () => {
  it('cuts a connection whose headers trickle in, answering 400 invalid_request', async () => {
    const outcome = await trickle(
      port,
      'GET /v1/listings HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      'X-Slow: 1\r\n'.repeat(100),
      {
        everyMs: 100,
        giveUpMs: GIVE_UP_MS,
      },
    );
    expect(outcome.closedByServer).toBe(true);
    expect(outcome.received).toMatch(/^HTTP\/1.1 400 /);
    expect(outcome.received).toMatch(/"code":"invalid_request","detail":"the request did not arrive in time/);
  });

  it('cuts a connection whose body trickles in', async () => {
    const body = JSON.stringify({ label: 'x'.repeat(200) });
    const head = `POST /sandbox/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    const outcome = await trickle(port, head, body, { everyMs: 50, giveUpMs: GIVE_UP_MS });
    expect(outcome.closedByServer).toBe(true);
    expect(outcome.received).not.toMatch(/201 Created/);
  });

  it('closes a keep-alive connection left idle after its answer', async () => {
    const outcome = await trickle(port, 'GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '', {
      everyMs: 100,
      giveUpMs: GIVE_UP_MS,
    });
    expect(outcome.received).toMatch(/^HTTP\/1.1 200 /);
    expect(outcome.closedByServer).toBe(true);
  });

  it('still refuses a body larger than the route accepts with 413 { code, detail }', async () => {
    const answer = await t.sandbox('/accounts', { label: 'x'.repeat(1_100_000) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ code: 'body_too_large', detail: expect.any(String) });
  });
});

describe('the default deadlines', () => {
  it('cut headers within 30 s and a whole request within 45 s, and keep-alive idle after 30 s', () => {
    const options = slowClientOptions();
    const every = options.http?.connectionsCheckingInterval ?? Number.POSITIVE_INFINITY;
    expect((options.http?.headersTimeout ?? Number.POSITIVE_INFINITY) + every).toBeLessThanOrEqual(30_000);
    expect((options.requestTimeout ?? Number.POSITIVE_INFINITY) + every).toBeLessThanOrEqual(45_000);
    expect(options.http?.requestTimeout).toBe(options.requestTimeout);
    expect(options.keepAliveTimeout).toBe(30_000);
  });

  it('are those of a service started without any', async () => {
    const service = await startTestService();
    try {
      const server = service.service.app.server;
      const defaults = slowClientOptions();
      expect(server.headersTimeout).toBe(defaults.http?.headersTimeout);
      expect(server.requestTimeout).toBe(defaults.requestTimeout);
      expect(server.keepAliveTimeout).toBe(defaults.keepAliveTimeout);
    } finally {
      await service.close();
    }
  });
});
