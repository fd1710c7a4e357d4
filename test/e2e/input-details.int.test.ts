/** Refused inputs: the detail names the field, says what is accepted and quotes what was sent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 50 });
  ({ key } = await t.account({ balance_usd: 100, trading: true }));
});
afterAll(() => t.close());

const item = (price: unknown) => ({
  operational_asset_id: 'op_1',
  asset_revision: 'r'.repeat(16),
  price_usd: price,
});

describe('details of refused inputs', () => {
  it('names the field, the number it takes and the string sent for price_usd "9.00"', async () => {
    const res = await t.call('/p2p/listings', {
      key,
      method: 'POST',
      body: item('9.00'),
      headers: { 'idempotency-key': 'detail-key-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.detail).toMatch(/^body price_usd: must be a number \(.*\); got the string "9\.00"$/);
  });

  it('names items, the limit and the count of a 51-item batch', async () => {
    const res = await t.call('/p2p/listings', {
      key,
      method: 'POST',
      body: { items: Array.from({ length: 51 }, () => item(1)) },
      headers: { 'idempotency-key': 'detail-key-2' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body items: must hold at most 50 items.*; got an array of 51 items$/);
  });

  it('names from, the Unix seconds it takes and the ISO date sent on /transactions', async () => {
    const res = await t.call('/transactions?from=2026-11-21T12:00:00Z', { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
    expect(res.body.detail).toBe(
      'query parameter from: must be an integer (Unix seconds; entries created at or after); got "2026-11-21T12:00:00Z"',
    );
  });

  it('says a query parameter sent twice must be given once', async () => {
    const res = await t.call('/orders?limit=1&limit=2', { key });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^query parameter limit: must be given once \(.*\); got 2 values$/);
  });

  it('names an unknown body field and the fields the body takes', async () => {
    const res = await t.call('/orders', { key, method: 'POST', body: { listing_ids: ['x'], max_price: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      'body: unknown field max_price; the fields are listing_ids, custom_id, max_price_usd, autoclaim, appId',
    );
  });

  it.each(['2026-11-21T12:00:00Z', '2026-11-21t12:00:00.123456z', '2026-11-21T12:00+02:00'])(
    'takes the RFC 3339 date-time %s as updated_after, as the document declares it',
    async (instant) => {
      const res = await t.call(`/orders?updated_after=${encodeURIComponent(instant)}`, { key });
      expect(res.status).toBe(200);
    },
  );

  it('says a required field is missing', async () => {
    const res = await t.call('/orders', { key, method: 'POST', body: {} });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^body listing_ids: is required \(.*\); got nothing$/);
  });
});
