import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../../../src/service/sim/random.js';
import { type InjectedService, openInjectedService } from '../../helpers/injected-service.js';

let t: InjectedService;
let key: string;

beforeAll(async () => {
  t = await openInjectedService({ listings: 300, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account());
});
afterAll(() => t.close());

const PATHS = [
  '/listings',
  '/prices',
  '/public/prices',
  '/games',
  '/currency',
  '/balance',
  '/transactions',
  '/health',
];
const NAMES = [
  'appId',
  'search',
  'name',
  'category',
  'wear',
  'rarity',
  'min_price',
  'max_price',
  'min_float',
  'max_float',
  'delivery',
  'min_refund_percent',
  'stat_trak',
  'souvenir',
  'available_after',
  'sort',
  'cursor',
  'limit',
  'type',
  'from',
  'to',
  'api_key',
];
const VALUES = [
  '',
  ' ',
  '-1',
  '0',
  '1',
  '1.5',
  '1e9',
  'NaN',
  'Infinity',
  '-0',
  '99999999999999999999',
  '730',
  '570',
  '252490',
  'only',
  'exclude',
  'newest',
  'price_asc',
  'Field-Tested',
  'instant',
  '2026-11-21T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '%00',
  '%FF',
  '%E2%98%85',
  '[]',
  '{}',
  'null',
  'true',
  "'; DROP TABLE listings; --",
  'x'.repeat(3000),
  Buffer.from('{"s":"id","a":730,"k":[1]}').toString('base64url'),
  'eyJ9',
  '__proto__',
  'constructor',
];

describe('bad input of every kind', () => {
  it('never answers 500, and every 4xx is a { code, detail } body', async () => {
    const random = new Random(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random.next() * list.length)] as T;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 600; i++) {
      const params: string[] = [];
      const count = 1 + Math.floor(random.next() * 4);
      for (let p = 0; p < count; p++) params.push(`${pick(NAMES)}=${pick(VALUES)}`);
      const path = `${pick(PATHS)}?${params.join('&')}`;
      const res = await t.call(path, { key });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, path).toBeLessThan(500);
      if (res.status >= 400) {
        expect(typeof res.body.code, path).toBe('string');
        expect(typeof res.body.detail, path).toBe('string');
        expect([
          'invalid_param',
          'unsupported_game',
          'insufficient_settled_balance',
          'invalid_api_key',
          'missing_api_key',
        ]).toContain(res.body.code);
      }
    }
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
  });

  it.each([
    ['a repeated parameter', '/listings?sort=id&sort=price_asc'],
    ['a repeated appId', '/listings?appId=730&appId=570'],
    ['a huge cursor', `/listings?cursor=${'A'.repeat(10_000)}`],
    ['a broken base64 cursor', '/listings?cursor=%%%'],
    ['a cursor of another endpoint', '/prices?cursor=dDox'],
  ])('answers 400 invalid_param for %s', async (_, path) => {
    const res = await t.call(path, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
  });

  it('answers an overlong URL without a 500', async () => {
    const res = await t.call(`/listings?search=${'z'.repeat(60_000)}`, { key });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
