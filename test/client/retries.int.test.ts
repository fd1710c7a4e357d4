import { describe, expect, it, onTestFinished } from 'vitest';
import {
  isNetworkError,
  isTransient,
  isUnexpectedResponseError,
  MarketClient,
  NetworkError,
} from '../../src/client/index.js';
import { decideRetry, retryDelayMs } from '../../src/client/retry-policy.js';
import { ApiError } from '../../src/contract/api-error.js';
import { fakeTime, hang, html, json, rejection, reset, scriptedClient } from './scripted-server.js';

const HEALTH = { status: 'ok', groups: 3, price_list_age_seconds: 1 };

/** An ApiError of `code`, with another status than the table's when given. */
const api = (code: ConstructorParameters<typeof ApiError>[0], status?: number) =>
  new ApiError(code, 'x', {}, status === undefined ? {} : { status });

describe('MarketClient retries', () => {
  it('retries 503 market_unavailable and a 502 HTML page with jittered backoff, then parses the answer', async () => {
    const { client, seen, sleeps } = await scriptedClient([
      json(503, { code: 'market_unavailable', detail: 'upstream down' }),
      html(502),
      json(200, { ...HEALTH, extra_field: 'ignored' }),
    ]);
    expect(await client.info.health()).toEqual(HEALTH);
    expect(seen).toHaveLength(3);
    expect(seen[0]).toBe('GET /v1/health Bearer svc_pub_scripted');
    // Full jitter with random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(sleeps).toEqual([250, 500]);
  });

  it('retries 409 price_updating', async () => {
    const { client, seen } = await scriptedClient([
      json(409, { code: 'price_updating', detail: 'prices mid-refresh' }),
      json(200, HEALTH),
    ]);
    expect(await client.info.health()).toEqual(HEALTH);
    expect(seen).toHaveLength(2);
  });

  it('retries a reset connection', async () => {
    const { client, seen, sleeps } = await scriptedClient([reset, json(200, HEALTH)]);
    expect(await client.info.health()).toEqual(HEALTH);
    expect(seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it('retries an attempt that times out', async () => {
    // Long enough that the answered attempt never times out on a loaded machine.
    const { client, seen } = await scriptedClient([hang, json(200, HEALTH)], { timeoutMs: 1000 });
    expect(await client.info.health()).toEqual(HEALTH);
    expect(seen).toHaveLength(2);
  });

  it('waits exactly Retry-After on a 429', async () => {
    const { client, seen, sleeps } = await scriptedClient([
      json(
        429,
        { code: 'rate_limit_exceeded', detail: 'slow down', limit: 100, retry_after_seconds: 7 },
        {
          'retry-after': '7',
        },
      ),
      json(200, { games: [{ appId: 730, name: 'CS2', tradable: true }] }),
    ]);
    expect(await client.info.games()).toEqual([{ appId: 730, name: 'CS2', tradable: true }]);
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([7000]);
  });

  it('never retries a 400, and keeps its code and extra fields', async () => {
    const { client, seen, sleeps } = await scriptedClient([
      json(400, { code: 'unsupported_game', detail: 'no', supported_app_ids: [730] }),
    ]);
    const error = await rejection(client.listings.list({ appId: 570 }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'unsupported_game',
      status: 400,
      extra: { supported_app_ids: [730] },
    });
    expect(seen).toEqual(['GET /v1/listings?appId=570 Bearer svc_pub_scripted']);
    expect(sleeps).toEqual([]);
  });

  it('gives up after maxRetries and throws the last error with its status', async () => {
    const { client, seen, sleeps } = await scriptedClient([html(502)], { maxRetries: 2 });
    const error = await rejection(client.account.balance());
    expect(error).toMatchObject({ code: 'market_unavailable', status: 502 });
    expect((error as ApiError).detail).toMatch(/HTTP 502 without an API error body: <html>/);
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it('turns a non-JSON 4xx into invalid_request with its status, not retried', async () => {
    const { client, seen } = await scriptedClient([html(404)]);
    const error = await rejection(client.info.currency());
    expect(error).toMatchObject({ code: 'invalid_request', status: 404 });
    expect(seen).toHaveLength(1);
  });

  it('keeps an error code it does not know under unknown_code', async () => {
    const { client } = await scriptedClient([
      json(418, { code: 'teapot', detail: 'short and stout', spout: 1 }),
    ]);
    const error = await rejection(client.account.balance());
    expect(error).toMatchObject({
      code: 'invalid_request',
      status: 418,
      extra: { unknown_code: 'teapot', spout: 1 },
    });
  });

  it('throws NetworkError with its cause when nothing listens', async () => {
    const { client } = await scriptedClient([json(200, HEALTH)], { maxRetries: 1 });
    const { clock, sleep, sleeps } = fakeTime();
    const closed = new MarketClient({ baseUrl: 'http://127.0.0.1:9/v1', clock, sleep, maxRetries: 1 });
    onTestFinished(() => closed.close());
    const error = await rejection(closed.info.health());
    expect(isNetworkError(error)).toBe(true);
    expect(error).toMatchObject({ timedOut: false, url: 'http://127.0.0.1:9/v1/health' });
    expect((error as NetworkError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(sleeps).toHaveLength(1);
    expect(await client.info.health()).toEqual(HEALTH);
  });

  it('marks a timeout as timedOut', async () => {
    const { client, seen } = await scriptedClient([hang], { timeoutMs: 100, maxRetries: 0 });
    const error = await rejection(client.info.health());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: true });
    expect(seen).toHaveLength(1);
  });

  it('throws UnexpectedResponseError for a 200 that breaks the contract, without retrying', async () => {
    const { client, seen } = await scriptedClient([json(200, { status: 'ok', groups: 'many' })]);
    const error = await rejection(client.info.health());
    expect(isUnexpectedResponseError(error)).toBe(true);
    expect((error as Error).message).toMatch(/groups/);
    expect(seen).toHaveLength(1);
  });
});

describe('isTransient', () => {
  it.each([
    ['429 rate_limit_exceeded', true, api('rate_limit_exceeded')],
    ['429 snapshot_rate_limited', true, api('snapshot_rate_limited')],
    ['409 price_updating', true, api('price_updating')],
    ['503 market_unavailable', true, api('market_unavailable')],
    ['502 without a JSON code', true, api('market_unavailable', 502)],
    ['504 upstream_timeout', true, api('upstream_timeout')],
    ['a network error', true, new NetworkError('reset', 'http://x', false)],
    ['a timeout', true, new NetworkError('slow', 'http://x', true)],
    ['400 invalid_param', false, api('invalid_param')],
    ['401 invalid_api_key', false, api('invalid_api_key')],
    ['402 insufficient_settled_balance', false, api('insufficient_settled_balance')],
    ['403 ip_not_allowed', false, api('ip_not_allowed')],
    ['409 item_unavailable', false, api('item_unavailable')],
    ['500 internal_error', false, api('internal_error')],
    ['a plain Error', false, new Error('bug')],
  ])('classifies %s as transient: %s', (_name, expected, error) => {
    expect(isTransient(error)).toBe(expected);
  });
});

describe('decideRetry', () => {
  const context = { attempt: 0, maxRetries: 3, now: 0, random: () => 0.5 };
  const post = { ...context, method: 'POST', idempotencyKey: 'order-key-1' };
  const resend = { lookUp: false, delayMs: 250 };
  const lookUp = { lookUp: true, delayMs: 250 };

  it.each([
    [
      '429 after its Retry-After',
      { lookUp: false, delayMs: 2000 },
      new ApiError('rate_limit_exceeded', 'x', {}, { headers: { 'retry-after': '2' } }),
    ],
    ['409 price_updating', resend, api('price_updating')],
    ['503 market_unavailable', resend, api('market_unavailable')],
    ['a 502 page', resend, api('market_unavailable', 502)],
    ['a reset connection', resend, new NetworkError('reset', 'http://x', false)],
    ['a timeout', lookUp, new NetworkError('slow', 'http://x', true)],
    ['504 upstream_timeout', lookUp, api('upstream_timeout')],
    ['500 order_failed', lookUp, api('order_failed')],
    ['409 idempotency_in_progress', lookUp, api('idempotency_in_progress')],
    ['400 invalid_request', null, api('invalid_request')],
    ['401 invalid_api_key', null, api('invalid_api_key')],
    ['402 insufficient_balance', null, api('insufficient_balance')],
    ['403 trading_not_enabled', null, api('trading_not_enabled')],
    ['409 price_moved', null, api('price_moved')],
    ['409 item_unavailable', null, api('item_unavailable')],
  ])('answers %s on a POST with an Idempotency-Key with %o', (_name, expected, error) => {
    expect(decideRetry(error, post)).toEqual(expected);
  });

  it('never retries a POST without an Idempotency-Key', () => {
    for (const error of [api('market_unavailable'), new NetworkError('reset', 'http://x', false)]) {
      expect(decideRetry(error, { ...context, method: 'POST' })).toBeNull();
    }
  });

  it('still asks for a lookup once the retries are spent, but for no resend', () => {
    expect(decideRetry(api('upstream_timeout'), { ...post, attempt: 3 })).toEqual({
      lookUp: true,
      delayMs: null,
    });
    expect(decideRetry(api('market_unavailable'), { ...post, attempt: 3 })).toBeNull();
  });

  it('gives retryDelayMs no delay for a failure that needs a lookup first', () => {
    expect(retryDelayMs(api('upstream_timeout'), post)).toBeNull();
    expect(retryDelayMs(api('upstream_timeout'), { ...context, method: 'GET' })).toBe(250);
  });
});
