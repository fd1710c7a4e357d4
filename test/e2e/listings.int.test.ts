import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;
let cs2: Listing[];

beforeAll(async () => {
  t = await startTestService({ listings: 3000, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account());
  cs2 = await readAllListings(t, key);
});
afterAll(() => t.close());

const get = (query: string) => t.call(`/listings?${query}`, { key });
const cents = (usd: number) => Math.round(usd * 100);

describe('GET /v1/listings', () => {
  it('answers CS2 by default: 50 rows in id order with a next_cursor', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(50);
    expect(res.body.items.every((l: Listing) => l.id.startsWith('c'))).toBe(true);
    const ids = res.body.items.map((l: Listing) => l.id);
    expect(ids).toEqual([...ids].sort());
    expect(typeof res.body.next_cursor).toBe('string');
  });

  it('answers many pages at once, each with its own bytes (page buffers are reused only after sending)', async () => {
    const queries = [
      'limit=200&sort=price_asc',
      'limit=200&sort=newest',
      'limit=150&sort=price_desc',
      'limit=7',
    ];
    const expected = await Promise.all(queries.map(async (q) => JSON.stringify((await get(q)).body)));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => get(queries[i % queries.length] ?? '')),
      );
      answers.forEach((res, i) => {
        expect(res.status).toBe(200);
        expect(JSON.stringify(res.body)).toBe(expected[i % queries.length]);
      });
    }
  });

  it('holds every CS2 listing of the catalogue', () => {
    expect(cs2.length).toBe(t.service.context.catalogue.index.size(730));
    expect(new Set(cs2.map((l) => l.id)).size).toBe(cs2.length);
  });

  it.each([
    [570, 'd'],
    [252490, 'r'],
  ])('answers appId %i with that game, CS2-only fields null', async (appId, prefix) => {
    const res = await get(`appId=${appId}&limit=200`);
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    for (const l of res.body.items as Listing[]) {
      expect(l.id.startsWith(prefix)).toBe(true);
      expect([
        l.wear,
        l.doppler_phase,
        l.float_value,
        l.paint_seed,
        l.inspect_link,
        l.tradable_at,
        l.listed_at,
      ]).toEqual([null, null, null, null, null, null, null]);
      expect(l.stickers).toEqual([]);
    }
  });

  it('answers 400 unsupported_game with supported_app_ids for an unknown game', async () => {
    const res = await get('appId=440');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unsupported_game', supported_app_ids: [730, 570, 252490] });
  });

  it('answers 400 unsupported_game for a game the key may not read', async () => {
    const { key: cs2Only } = await t.account({ app_ids: [730] });
    const res = await t.call('/listings?appId=570', { key: cs2Only });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unsupported_game', supported_app_ids: [730] });
  });

  it.each([
    'wear=Field-Tested',
    'min_float=0.1',
    'max_float=0.5',
    'stat_trak=only',
    'souvenir=exclude',
    'available_after=2026-01-01T00:00:00Z',
    'sort=newest',
  ])('answers 400 invalid_param for the CS2-only %s with appId 570', async (param) => {
    const res = await get(`appId=570&${param}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
  });

  it('matches name exactly, case-insensitively, and lets name win over search', async () => {
    const target = cs2.find((l) => l.wear !== null) as Listing;
    const expected = cs2.filter((l) => l.market_hash_name === target.market_hash_name).map((l) => l.id);
    const res = await get(
      `name=${encodeURIComponent(target.market_hash_name.toUpperCase())}&search=zzzz&limit=200`,
    );
    expect(res.body.items.map((l: Listing) => l.id)).toEqual(expected);
  });

  it('matches every search word anywhere in the name', async () => {
    const res = await get('search=ak-47%20redline&limit=200');
    const expected = cs2.filter(
      (l) => /ak-47/i.test(l.market_hash_name) && /redline/i.test(l.market_hash_name),
    );
    expect(res.body.items.map((l: Listing) => l.id)).toEqual(expected.map((l) => l.id).slice(0, 200));
  });

  const filters: [string, (l: Listing) => boolean][] = [
    ['category=Knife', (l) => l.category === 'Knife'],
    ['category=knife', (l) => l.category === 'Knife'],
    ['rarity=Covert', (l) => l.rarity === 'Covert'],
    ['wear=Factory%20New', (l) => l.wear === 'Factory New'],
    ['min_price=10&max_price=50', (l) => cents(l.price_usd) >= 1000 && cents(l.price_usd) <= 5000],
    [
      'min_float=0.2&max_float=0.25',
      (l) => l.float_value !== null && l.float_value >= 0.2 && l.float_value <= 0.25,
    ],
    ['delivery=hold', (l) => l.delivery === 'hold'],
    ['delivery=up_to_12h', (l) => l.delivery === 'up_to_12h'],
    ['min_refund_percent=50', (l) => l.refund_percent !== null && l.refund_percent >= 50],
    ['min_refund_percent=0', (l) => l.refund_percent !== null],
    ['stat_trak=only', (l) => l.market_hash_name.includes('StatTrak™')],
    ['stat_trak=exclude', (l) => !l.market_hash_name.includes('StatTrak™')],
    ['souvenir=only', (l) => l.market_hash_name.startsWith('Souvenir ')],
    [
      'souvenir=exclude&category=Rifle',
      (l) => !l.market_hash_name.startsWith('Souvenir ') && l.category === 'Rifle',
    ],
  ];

  it.each(filters)('filters %s like a reference over every listing', async (query, keep) => {
    const expected = cs2.filter(keep).map((l) => l.id);
    expect(expected.length).toBeGreaterThan(0);
    const rows = await readAllListings(t, key, `&${query}`);
    expect(rows.map((l) => l.id)).toEqual(expected);
  });

  it('keeps only listings that entered the catalogue after available_after, newest first', async () => {
    const times = cs2.map((l) => Date.parse(l.listed_at as string)).sort((a, b) => a - b);
    const bound = times[Math.floor(times.length * 0.8)] as number;
    const rows = await readAllListings(
      t,
      key,
      `&sort=newest&available_after=${new Date(bound).toISOString()}`,
    );
    const expected = cs2.filter((l) => Date.parse(l.listed_at as string) > bound);
    expect(new Set(rows.map((l) => l.id))).toEqual(new Set(expected.map((l) => l.id)));
    expect(rows.length).toBe(expected.length);
  });

  it.each([
    [
      'newest',
      (a: Listing, b: Listing) =>
        Date.parse(b.listed_at ?? '') - Date.parse(a.listed_at ?? '') || cmp(b.id, a.id),
    ],
    ['price_asc', (a: Listing, b: Listing) => cents(a.price_usd) - cents(b.price_usd) || cmp(a.id, b.id)],
    ['price_desc', (a: Listing, b: Listing) => cents(b.price_usd) - cents(a.price_usd) || cmp(b.id, a.id)],
    ['id', (a: Listing, b: Listing) => cmp(a.id, b.id)],
  ] as const)('sorts by %s across pages', async (sort, order) => {
    const rows = await readAllListings(t, key, `&sort=${sort}`);
    expect(rows.map((l) => l.id)).toEqual([...cs2].sort(order).map((l) => l.id));
  });

  it('sets next_cursor null on the last page', async () => {
    const res = await get('category=Gloves&limit=200');
    expect(res.body.next_cursor).toBeNull();
  });

  it.each([
    ['limit=0'],
    ['limit=201'],
    ['limit=1.5'],
    ['limit=abc'],
    ['limit=1&limit=2'],
    ['delivery=fast'],
    ['min_refund_percent=101'],
    ['min_refund_percent=-1'],
    ['available_after=yesterday'],
    ['available_after=2026-13-45T00:00:00Z'],
    ['sort=cheapest'],
    ['wear=Brand%20New'],
    ['stat_trak=yes'],
    ['min_price=-5'],
    ['min_price=1e3'],
    ['min_price=0x10'],
    ['min_float=2'],
    ['min_price=50&max_price=10'],
    ['appId=cs2'],
    ['cursor=not-a-cursor'],
    [`name=${'x'.repeat(5000)}`],
    [`search=${'y'.repeat(5000)}`],
  ])('answers 400 invalid_param for %s', async (query) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
    expect(res.body.detail.length).toBeGreaterThan(5);
  });

  it('refuses a cursor made for another sort or game', async () => {
    const page = await get('sort=price_asc&limit=5');
    const otherSort = await get(`sort=price_desc&cursor=${page.body.next_cursor}`);
    const otherGame = await get(`appId=570&sort=price_asc&cursor=${page.body.next_cursor}`);
    expect(otherSort.body.code).toBe('invalid_param');
    expect(otherGame.body.code).toBe('invalid_param');
  });
});

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
