/**
 * The service's `/metrics` for its operator: off by default, behind a token of its own, in
 * Prometheus' text format as `promtool check metrics` reads it (where installed), with requests by
 * route and status, open streams, the event log's position, the webhook queue and due work.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { promtool, which } from '../helpers/prometheus.js';
import { startTestService, type TestService } from '../helpers/service.js';

const TOKEN = 'metrics-token-of-the-operator';

let t: TestService;
let plain: TestService;

beforeAll(async () => {
  // X-Forwarded-For from the tests' own address is believed: a test can be banned alone.
  t = await startTestService({ listings: 100, metricsToken: TOKEN, trustProxy: ['127.0.0.1'] });
  plain = await startTestService({ listings: 10 });
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
});

async function scrape(service: TestService, token: string | null = TOKEN, from?: string) {
  const response = await fetch(`${service.origin}/metrics`, {
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(from === undefined ? {} : { 'x-forwarded-for': from }),
    },
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** Opens the listing stream with `key` (200); abort the controller to close it. */
async function openStream(service: TestService, key: string): Promise<AbortController> {
  const stream = new AbortController();
  const opened = await fetch(`${service.baseUrl}/listings/stream`, {
    headers: { authorization: `Bearer ${key}` },
    signal: stream.signal,
  });
  expect(opened.status).toBe(200);
  return stream;
}

/** The value of the series written exactly `series` (name and labels) in the exposition. */
function sampleOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe('GET /metrics of the service', () => {
  it('is off by default', async () => {
    expect((await scrape(plain)).status).toBe(404);
  });

  it('refuses a caller without the metrics token, an API key included', async () => {
    const { key } = await t.account();
    for (const token of [null, 'wrong', key]) {
      const answer = await scrape(t, token);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toEqual({ code: 'invalid_api_key', detail: expect.any(String) });
    }
  });

  it('counts requests by route and status and shows open streams and the queues', async () => {
    const { key } = await t.account();
    await t.call('/health');
    await t.call('/listings?appId=730&limit=1', { key });
    await t.call('/listings?appId=730&limit=1');
    const stream = await openStream(t, key);
    try {
      await vi.waitFor(async () =>
        expect(sampleOf((await scrape(t)).text, 'market_service_open_streams')).toBe(1),
      );
    } finally {
      stream.abort();
    }
    const { status, type, text } = await scrape(t);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(
      sampleOf(text, 'market_service_http_requests_total{route="/v1/health",method="GET",status="200"}'),
    ).toBe(1);
    expect(
      sampleOf(text, 'market_service_http_requests_total{route="/v1/listings",method="GET",status="200"}'),
    ).toBe(1);
    expect(
      sampleOf(text, 'market_service_http_requests_total{route="/v1/listings",method="GET",status="401"}'),
    ).toBe(1);
    expect(sampleOf(text, 'market_service_event_log_position')).toBeGreaterThanOrEqual(0);
    expect(sampleOf(text, 'market_service_webhook_queue_depth')).toBe(0);
    expect(sampleOf(text, 'market_service_webhook_oldest_due_seconds')).toBe(0);
    expect(sampleOf(text, 'market_service_due_work_behind_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]/m);
  });

  it('counts a stream that opened as a 200 of its route, once', async () => {
    const { key } = await t.account();
    const series =
      'market_service_http_requests_total{route="/v1/listings/stream",method="GET",status="200"}';
    const before = sampleOf((await scrape(t)).text, series) || 0;
    const stream = await openStream(t, key);
    try {
      expect(sampleOf((await scrape(t)).text, series)).toBe(before + 1);
    } finally {
      stream.abort();
    }
    await vi.waitFor(async () =>
      expect(sampleOf((await scrape(t)).text, 'market_service_open_streams')).toBe(0),
    );
    expect(sampleOf((await scrape(t)).text, series)).toBe(before + 1);
  });

  it.each([
    ['DELETE', '/listings', '/v1/listings'],
    ['PUT', '/orders/ord_nothing', '/v1/orders/:id'],
  ])('labels a 405 of %s %s by the route its path belongs to', async (method, path, route) => {
    const answer = await fetch(`${t.baseUrl}${path}`, { method });
    expect(answer.status).toBe(405);
    const { text } = await scrape(t);
    expect(
      sampleOf(text, `market_service_http_requests_total{route="${route}",method="${method}",status="405"}`),
    ).toBe(1);
    expect(text).not.toMatch(/route="unmatched",method="(DELETE|PUT)",status="405"/);
  });

  it('counts wrong tokens towards the address ban, as bad keys', async () => {
    const from = '198.51.100.23';
    for (let i = 0; i < 30; i++) {
      const answer = await scrape(t, `guess-${i}`, from);
      expect(JSON.parse(answer.text).code).toBe('invalid_api_key');
    }
    const banned = await scrape(t, 'guess-30', from);
    expect(banned.status).toBe(401);
    expect(JSON.parse(banned.text)).toMatchObject({ code: 'too_many_failed_auth' });
    // The ban answers every request from the address: the right token and a valid key alike.
    expect(JSON.parse((await scrape(t, TOKEN, from)).text).code).toBe('too_many_failed_auth');
    const { key } = await t.account();
    const keyed = await t.call('/balance', { key, headers: { 'x-forwarded-for': from } });
    expect(keyed.body.code).toBe('too_many_failed_auth');
    expect((await scrape(t)).status).toBe(200);
  });

  it('passes promtool check metrics', async (context) => {
    if (!(await which('promtool')))
      return context.skip('promtool is not installed (apt-get install prometheus)');
    const { code, output } = await promtool(['check', 'metrics'], (await scrape(t)).text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});
