import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/contract/api-error.js';
import {
  LISTING_SORTS,
  type Listing,
  type ListingSort,
  listingSchema,
  WEARS,
} from '../../../../src/contract/listing.js';
import { orderListingKeys } from '../../../../src/service/market/listing-index/indexed-listing.js';
import {
  compileFilter,
  type IndexedListing,
  ListingIndex,
  type ListingSearch,
  matchesFilters,
  PageBufferPool,
  renderListingPage,
} from '../../../../src/service/market/listing-index/listing-index.js';
import {
  createListingFactory,
  createRandom,
  RARITIES,
  type Random,
  SKINS,
  WEAPONS,
} from '../../../helpers/listing-factory.js';

const CS2 = 730;
const DOTA = 570;
const BASE_MS = Date.parse('2026-11-01T00:00:00.000Z');

// ---- an independent reference: filters and orderings over plain Listing objects ----

const cents = (usd: number) => Math.round(usd * 100);
const parsedTimes = new WeakMap<Listing, number | null>();
function listedMs(l: Listing): number | null {
  let ms = parsedTimes.get(l);
  if (ms === undefined) {
    ms = l.listed_at === null ? null : Date.parse(l.listed_at);
    parsedTimes.set(l, ms);
  }
  return ms;
}

function referenceMatches(l: Listing, s: ListingSearch): boolean {
  const name = l.market_hash_name.toLowerCase();
  if (s.name !== undefined) {
    if (name !== s.name.toLowerCase()) return false;
  } else if (s.search !== undefined) {
    const tokens = s.search.toLowerCase().split(/\s+/).filter(Boolean);
    if (!tokens.every((t) => name.includes(t))) return false;
  }
  const price = cents(l.price_usd);
  const listed = listedMs(l);
  const checks = [
    s.category === undefined || l.category.toLowerCase() === s.category.toLowerCase(),
    s.rarity === undefined || l.rarity.toLowerCase() === s.rarity.toLowerCase(),
    s.wear === undefined || l.wear === s.wear,
    s.minPriceCents === undefined || price >= s.minPriceCents,
    s.maxPriceCents === undefined || price <= s.maxPriceCents,
    s.minFloat === undefined || (l.float_value !== null && l.float_value >= s.minFloat),
    s.maxFloat === undefined || (l.float_value !== null && l.float_value <= s.maxFloat),
    s.delivery === undefined || l.delivery === s.delivery,
    s.minRefundPercent === undefined || (l.refund_percent !== null && l.refund_percent >= s.minRefundPercent),
    s.statTrak === undefined || l.market_hash_name.includes('StatTrak™') === (s.statTrak === 'only'),
    s.souvenir === undefined || l.market_hash_name.startsWith('Souvenir ') === (s.souvenir === 'only'),
    s.availableAfterMs === undefined || (listed !== null && listed > s.availableAfterMs),
  ];
  return checks.every(Boolean);
}

const byId = (a: Listing, b: Listing) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const REFERENCE_ORDERS: Record<ListingSort, (a: Listing, b: Listing) => number> = {
  id: byId,
  newest: (a, b) => {
    const x = listedMs(a) ?? Number.NEGATIVE_INFINITY;
    const y = listedMs(b) ?? Number.NEGATIVE_INFINITY;
    return x !== y ? (y > x ? 1 : -1) : byId(b, a);
  },
  price_asc: (a, b) => cents(a.price_usd) - cents(b.price_usd) || byId(a, b),
  price_desc: (a, b) => cents(b.price_usd) - cents(a.price_usd) || byId(b, a),
};

function referencePage(live: Iterable<Listing>, s: ListingSearch): string[] {
  return [...live]
    .filter((l) => referenceMatches(l, s))
    .sort(REFERENCE_ORDERS[s.sort])
    .map((l) => l.id);
}

// ---- fixtures ----

function randomSearch(random: Random, appId = CS2, limits = [3, 50, 200]): ListingSearch {
  const s: ListingSearch = { appId, sort: random.pick(LISTING_SORTS), limit: random.pick(limits) };
  const maybe = (p: number) => random.chance(p);
  if (maybe(0.1)) s.name = randomName(random);
  if (maybe(0.25))
    s.search = random.pick(['ak', 'REDLINE ak', '|', 'stattrak™ |', 'field', 'doppler', '★', 'zzz']);
  if (maybe(0.2)) s.category = random.pick(WEAPONS)[1].toLowerCase();
  if (maybe(0.15)) s.rarity = random.pick(RARITIES).toUpperCase();
  if (maybe(0.15)) s.wear = random.pick(WEARS);
  if (maybe(0.2)) s.minPriceCents = random.int(6000);
  if (maybe(0.2)) s.maxPriceCents = random.int(10_000);
  if (maybe(0.15)) s.minFloat = random.next() / 2;
  if (maybe(0.15)) s.maxFloat = 0.3 + random.next() / 2;
  if (maybe(0.15)) s.delivery = random.pick(['instant', 'up_to_12h', 'hold'] as const);
  if (maybe(0.15)) s.minRefundPercent = random.pick([0, 50, 75, 100]);
  if (maybe(0.15)) s.statTrak = random.pick(['only', 'exclude'] as const);
  if (maybe(0.15)) s.souvenir = random.pick(['only', 'exclude'] as const);
  if (maybe(0.2)) s.availableAfterMs = BASE_MS + random.int(5000) * 60_000;
  return s;
}

function randomName(random: Random): string {
  const [weapon] = random.pick(WEAPONS);
  const name = `${random.chance(0.2) ? 'StatTrak™ ' : ''}${weapon} | ${random.pick(SKINS)} (${random.pick(WEARS)})`;
  return random.chance(0.5) ? name.toUpperCase() : name;
}

/** Every page of a search, following next_cursor. */
function allPages(index: ListingIndex, search: ListingSearch): IndexedListing[][] {
  const pages: IndexedListing[][] = [];
  let cursor: string | undefined;
  do {
    const page = index.query(cursor === undefined ? search : { ...search, cursor });
    pages.push(page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 10_000);
  return pages;
}

function buildIndex(seed: number, count: number): { index: ListingIndex; live: Map<string, Listing> } {
  const index = new ListingIndex({ arena: { slabSize: 16_384 } });
  const live = new Map<string, Listing>();
  const cs2 = createListingFactory({ seed });
  const dota = createListingFactory({ seed: seed + 1, appId: DOTA });
  for (let i = 0; i < count; i++) {
    const listing = cs2();
    index.upsert(CS2, listing);
    live.set(listing.id, listing);
  }
  for (let i = 0; i < count / 10; i++) index.upsert(DOTA, dota());
  return { index, live };
}

function apiErrorOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

// ---- tests ----

describe('ListingIndex.query', () => {
  const { index, live } = buildIndex(1, 6000);

  it('answers every random filter and sort like a brute-force reference, page by page', () => {
    const random = createRandom(2);
    for (let round = 0; round < 150; round++) {
      const search = randomSearch(random);
      const pages = allPages(index, search);
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(search.limit);
      expect(pages.at(-1)?.length).toBeLessThanOrEqual(search.limit);
      const ids = pages.flat().map((l) => l.id);
      expect(ids, JSON.stringify(search)).toEqual(referencePage(live.values(), search));
    }
  });

  const single: [string, Partial<ListingSearch>][] = [
    ['name (case-insensitive)', { name: 'ak-47 | REDLINE (Field-Tested)' }],
    ['search tokens', { search: '  redline   AK ' }],
    ['search over most names', { search: '|' }],
    ['category', { category: 'RIFLE' }],
    ['rarity', { rarity: 'covert' }],
    ['wear', { wear: 'Minimal Wear' }],
    ['price bounds', { minPriceCents: 1000, maxPriceCents: 2500 }],
    ['float bounds', { minFloat: 0.2, maxFloat: 0.25 }],
    ['delivery', { delivery: 'hold' }],
    ['min refund percent', { minRefundPercent: 75 }],
    ['stat_trak only', { statTrak: 'only' }],
    ['stat_trak exclude', { statTrak: 'exclude' }],
    ['souvenir only', { souvenir: 'only' }],
    ['souvenir exclude', { souvenir: 'exclude' }],
    ['available after', { availableAfterMs: BASE_MS + 4000 * 60_000 }],
    ['no filter', {}],
  ];
  const cases = single.flatMap(([label, filter]) =>
    LISTING_SORTS.map((sort) => [label, sort, filter] as const),
  );

  it.each(cases)('filters by %s under sort=%s like the reference', (_label, sort, filter) => {
    const search: ListingSearch = { appId: CS2, sort, limit: 200, ...filter };
    const expected = referencePage(live.values(), search);
    expect(expected.length).toBeGreaterThan(0);
    expect(
      allPages(index, search)
        .flat()
        .map((l) => l.id),
    ).toEqual(expected);
  });

  it('lets name win over search', () => {
    const name = 'AWP | Asiimov (Factory New)';
    const page = index.query({ appId: CS2, sort: 'id', limit: 200, name, search: 'zzz' });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((l) => l.name === name)).toBe(true);
  });

  it('keeps games apart', () => {
    const dota = allPages(index, { appId: DOTA, sort: 'price_asc', limit: 50 }).flat();
    expect(dota).toHaveLength(index.size(DOTA));
    expect(dota.every((l) => l.appId === DOTA && l.wear === null)).toBe(true);
    expect(index.query({ appId: 252490, sort: 'id', limit: 50 })).toEqual({ items: [], nextCursor: null });
  });

  it('says null as next_cursor on the last page, even when it is exactly full', () => {
    const total = index.size(DOTA);
    const page = index.query({ appId: DOTA, sort: 'id', limit: total });
    expect(page.items).toHaveLength(total);
    expect(page.nextCursor).toBeNull();
    expect(index.query({ appId: DOTA, sort: 'id', limit: total - 1 }).nextCursor).not.toBeNull();
  });
});

describe('ListingIndex cursor', () => {
  const { index } = buildIndex(3, 500);
  const first = index.query({ appId: CS2, sort: 'price_asc', limit: 10 });
  const cursor = first.nextCursor ?? '';
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it.each([
    ['not base64url', 'not a cursor!'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON of another shape', encode({ page: 2 })],
    ['a price cursor without its price', encode({ v: 1, a: CS2, s: 'price_asc', i: 'x' })],
    ['an unknown version', encode({ v: 2, a: CS2, s: 'price_asc', i: 'x', p: 1 })],
    ['a cut cursor', cursor.slice(0, -3)],
  ])('answers invalid_param for %s', (_label, bad) => {
    const error = apiErrorOf(() => index.query({ appId: CS2, sort: 'price_asc', limit: 10, cursor: bad }));
    expect(error.code).toBe('invalid_param');
    expect(error.detail).toMatch(/pass next_cursor back unchanged/);
  });

  it('answers invalid_param for a cursor made for another sort or game', () => {
    const otherSort = apiErrorOf(() => index.query({ appId: CS2, sort: 'price_desc', limit: 10, cursor }));
    expect(otherSort.code).toBe('invalid_param');
    expect(otherSort.detail).toMatch(/sort=price_asc, not sort=price_desc/);
    const otherGame = apiErrorOf(() => index.query({ appId: 252490, sort: 'price_asc', limit: 10, cursor }));
    expect(otherGame.detail).toMatch(/appId=730, not appId=252490/);
  });

  it('is a pure position: the next page follows even when the last row left', () => {
    const last = first.items.at(-1) as IndexedListing;
    const expected = index.query({ appId: CS2, sort: 'price_asc', limit: 5, cursor }).items.map((l) => l.id);
    index.remove(last.id);
    expect(index.query({ appId: CS2, sort: 'price_asc', limit: 5, cursor }).items.map((l) => l.id)).toEqual(
      expected,
    );
  });
});

describe('ListingIndex paging under churn', () => {
  it('never repeats a row and never misses one that stays live throughout', () => {
    const random = createRandom(4);
    const make = createListingFactory({ seed: 5 });
    const { index, live } = buildIndex(6, 3000);
    const ids = [...live.keys()];
    const problems: string[] = [];
    let pages = 0;
    for (let round = 0; round < 80; round++) {
      const search = randomSearch(random, CS2, [2, 10, 40]);
      if (search.limit === 2) search.category = 'knife';
      const label = JSON.stringify(search);
      const atStart = new Set(live.keys());
      const touched = new Set<string>();
      const seen = new Set<string>();
      let previous: Listing | undefined;
      let cursor: string | undefined;
      do {
        const page = index.query(cursor === undefined ? search : { ...search, cursor });
        pages++;
        for (const item of page.items) {
          const listing = item.listing;
          if (seen.has(item.id) && !touched.has(item.id)) problems.push(`${item.id} repeated for ${label}`);
          seen.add(item.id);
          if (!referenceMatches(listing, search)) problems.push(`${item.id} does not match ${label}`);
          if (previous !== undefined && REFERENCE_ORDERS[search.sort](previous, listing) >= 0) {
            problems.push(`${item.id} out of order for ${label}`);
          }
          previous = listing;
        }
        cursor = page.nextCursor ?? undefined;
        churn(random, make, index, { live, ids, touched }, 1 + random.int(8));
      } while (cursor !== undefined);
      for (const id of atStart) {
        const listing = live.get(id);
        if (listing === undefined || touched.has(id) || !referenceMatches(listing, search)) continue;
        if (!seen.has(id)) problems.push(`${id} missed for ${label}`);
      }
    }
    expect(problems).toEqual([]);
    expect(pages).toBeGreaterThan(2000);
    expect(index.size(CS2)).toBe(live.size);
    for (const [id, listing] of live) {
      expect(index.get(id)?.json.toString()).toBe(JSON.stringify(orderListingKeys(listing)));
    }
    const stats = index.jsonStats();
    const total = [...index.values(CS2), ...index.values(DOTA)].reduce((n, l) => n + l.jsonLength, 0);
    expect(stats.liveBytes).toBe(total);
    expect(stats.slabBytes).toBeLessThan(3 * stats.liveBytes + 2 * 16_384);
  });
});

/** Adds, removes and re-lists a few CS2 listings (as often each), recording the ids whose row changed. */
function churn(
  random: Random,
  make: ReturnType<typeof createListingFactory>,
  index: ListingIndex,
  state: { live: Map<string, Listing>; ids: string[]; touched: Set<string> },
  count: number,
): void {
  const { live, ids, touched } = state;
  for (let i = 0; i < count; i++) {
    const roll = random.int(3);
    if (roll === 0 || ids.length === 0) {
      const listing = make();
      index.upsert(CS2, listing);
      live.set(listing.id, listing);
      ids.push(listing.id);
      continue;
    }
    const at = random.int(ids.length);
    const id = ids[at] as string;
    touched.add(id);
    if (roll === 1) {
      expect(index.remove(id)?.id).toBe(id);
      live.delete(id);
      ids[at] = ids[ids.length - 1] as string;
      ids.pop();
    } else {
      const listing = make({ id });
      index.upsert(CS2, listing);
      live.set(id, listing);
    }
  }
}

describe('ListingIndex maintenance', () => {
  it('replaces on upsert, removes, and moves an id between games', () => {
    const make = createListingFactory({ seed: 7 });
    const index = new ListingIndex();
    const a = make({ id: 'a', price_usd: 10 });
    index.upsert(CS2, a);
    index.upsert(CS2, make({ id: 'b' }));
    const replaced = index.upsert(CS2, { ...a, price_usd: 20 });
    expect(index.size(CS2)).toBe(2);
    expect(replaced.priceCents).toBe(2000);
    expect(index.get('a')).toBe(replaced);
    index.upsert(DOTA, { ...a, wear: null });
    expect([index.size(CS2), index.size(DOTA), index.size()]).toEqual([1, 1, 2]);
    expect([...index.values(CS2)].map((l) => l.id)).toEqual(['b']);
    const removed = index.remove('a');
    expect(removed?.listing.id).toBe('a');
    expect(index.remove('a')).toBeUndefined();
    expect(index.get('a')).toBeUndefined();
    expect([...index.values(252490)]).toEqual([]);
  });

  it('builds the same orderings in bulk as one insert at a time', () => {
    const make = createListingFactory({ seed: 8 });
    const listings = Array.from({ length: 2000 }, () => make());
    const bulk = new ListingIndex();
    for (const l of listings) bulk.upsert(CS2, l);
    bulk.flush();
    const single = new ListingIndex();
    for (const l of listings) {
      single.upsert(CS2, l);
      single.query({ appId: CS2, sort: 'id', limit: 1 });
    }
    for (const sort of LISTING_SORTS) {
      const search: ListingSearch = { appId: CS2, sort, limit: 200 };
      const ids = (index: ListingIndex) =>
        allPages(index, search)
          .flat()
          .map((l) => l.id);
      expect(ids(bulk)).toEqual(ids(single));
      expect(ids(bulk)).toEqual(referencePage(listings, search));
    }
  });

  it('counts pending additions and picks any live listing by position with at()', () => {
    const make = createListingFactory({ seed: 15 });
    const index = new ListingIndex();
    const cs2 = Array.from({ length: 30 }, () => index.upsert(CS2, make()).id);
    const dota = Array.from({ length: 20 }, () => index.upsert(DOTA, make({ wear: null })).id);
    expect([index.size(CS2), index.size(DOTA), index.size()]).toEqual([30, 20, 50]);
    const picked = Array.from({ length: 50 }, (_, i) => index.at(i)?.id);
    expect(new Set(picked)).toEqual(new Set([...cs2, ...dota]));
    expect(picked.slice(0, 30)).toEqual([...cs2].sort());
    expect(index.at(50)).toBeUndefined();
    expect(index.at(-1)).toBeUndefined();
  });

  it('finds listings of names and categories that appear after the same filter was answered', () => {
    const make = createListingFactory({ seed: 16 });
    const index = new ListingIndex();
    for (let i = 0; i < 50; i++) index.upsert(CS2, make());
    const searches: ListingSearch[] = [
      { appId: CS2, sort: 'id', limit: 10, search: 'zeus' },
      { appId: CS2, sort: 'id', limit: 10, category: 'equipment' },
      { appId: CS2, sort: 'id', limit: 10, search: 'x27', category: 'Equipment', wear: 'Factory New' },
    ];
    for (const search of searches) expect(index.query(search).items).toEqual([]);
    const zeus = index.upsert(
      CS2,
      make({
        market_hash_name: 'Zeus x27 | Olympus (Factory New)',
        category: 'Equipment',
        wear: 'Factory New',
      }),
    );
    for (const search of searches) expect(index.query(search).items).toEqual([zeus]);
  });

  it('derives stat_trak and souvenir from the name', () => {
    const make = createListingFactory({ seed: 9 });
    const index = new ListingIndex();
    const flags = (name: string) => {
      const l = index.upsert(CS2, make({ market_hash_name: name }));
      return [l.statTrak, l.souvenir];
    };
    expect(flags('StatTrak™ AK-47 | Redline (Field-Tested)')).toEqual([true, false]);
    expect(flags('★ StatTrak™ Karambit | Fade (Factory New)')).toEqual([true, false]);
    expect(flags('Souvenir AWP | Dragon Lore (Factory New)')).toEqual([false, true]);
    expect(flags('StatTrak AK-47 | Slate (Field-Tested)')).toEqual([false, false]);
  });
});

describe('compileFilter', () => {
  it('agrees with matchesFilters and the reference on random filters', () => {
    const random = createRandom(10);
    const make = createListingFactory({ seed: 11 });
    const index = new ListingIndex();
    const rows = Array.from({ length: 300 }, () => index.upsert(CS2, make()));
    const listings = rows.map((row) => row.listing);
    const mismatches: string[] = [];
    for (let i = 0; i < 200; i++) {
      const search = randomSearch(random);
      const keep = compileFilter(search);
      rows.forEach((row, r) => {
        const expected = referenceMatches(listings[r] as Listing, search);
        if (keep(row) !== expected || matchesFilters(row, search) !== expected) {
          mismatches.push(`${row.id} ${JSON.stringify(search)}`);
        }
      });
    }
    expect(mismatches).toEqual([]);
  });
});

describe('ListingIndex name queries', () => {
  const make = createListingFactory({ seed: 14 });
  const index = new ListingIndex();
  const popular = 'AK-47 | Redline (Field-Tested)';
  const listings = Array.from({ length: 900 }, (_, i) =>
    make(i % 3 === 0 ? {} : { market_hash_name: popular }),
  );
  for (const l of listings) index.upsert(CS2, l);

  it.each(LISTING_SORTS.flatMap((sort) => [1, 5, 200].map((limit) => [sort, limit] as const)))(
    'pages a large name group like the reference (sort=%s, limit %i)',
    (sort, limit) => {
      const search: ListingSearch = {
        appId: CS2,
        sort,
        limit,
        name: popular.toLowerCase(),
        maxPriceCents: 8000,
      };
      const ids = allPages(index, search)
        .flat()
        .map((l) => l.id);
      expect(ids).toEqual(referencePage(listings, search));
    },
  );
});

describe('ListingIndex float bounds', () => {
  const bounds = [0, 0.01, 0.0699, 0.07, 0.15, 0.2, 0.25, 0.38, 0.45, 0.6, 0.8, 0.99, 1];
  const make = createListingFactory({ seed: 13 });
  const index = new ListingIndex();
  const listings = bounds.flatMap((float_value) => [make({ float_value }), make({ float_value })]);
  for (const l of listings) index.upsert(CS2, l);
  const pairs = bounds.flatMap((min) => bounds.filter((max) => max >= min).map((max) => [min, max] as const));

  it.each(pairs)('keeps floats from %f to %f inclusive, also at bucket edges', (minFloat, maxFloat) => {
    const search: ListingSearch = { appId: CS2, sort: 'price_asc', limit: 200, minFloat, maxFloat };
    expect(index.query(search).items.map((l) => l.id)).toEqual(referencePage(listings, search));
  });
});

describe('renderListingPage', () => {
  const make = createListingFactory({ seed: 12 });
  const index = new ListingIndex();
  const listings = Array.from({ length: 30 }, () => make());
  for (const l of listings) index.upsert(CS2, l);
  const expectedItems = (ids: string[]) =>
    ids.map((id) => orderListingKeys(listings.find((l) => l.id === id) as Listing));

  it.each([5, 30, 40])('renders the page as the exact JSON body (limit %i)', (limit) => {
    const page = index.query({ appId: CS2, sort: 'newest', limit });
    const body = renderListingPage(page);
    const parsed = JSON.parse(body.toString('utf8')) as { items: Listing[]; next_cursor: string | null };
    expect(parsed).toEqual({
      items: expectedItems(page.items.map((l) => l.id)),
      next_cursor: page.nextCursor,
    });
    expect(Buffer.byteLength(JSON.stringify(parsed))).toBe(body.length);
  });

  it('renders into a lent buffer exactly as into a fresh one, and the pool lends a given-back buffer again', () => {
    const pool = new PageBufferPool({ bufferSize: 64 * 1024, keep: 1 });
    const page = index.query({ appId: CS2, sort: 'newest', limit: 30 });
    const first = renderListingPage(page, (n) => pool.take(n));
    expect(first.equals(renderListingPage(page))).toBe(true);
    const firstBytes = first.buffer;
    pool.give(first);
    expect(pool.idle).toBe(1);
    const second = renderListingPage(index.query({ appId: CS2, sort: 'price_asc', limit: 5 }), (n) =>
      pool.take(n),
    );
    expect(second.buffer).toBe(firstBytes);
    expect(JSON.parse(second.toString()).items).toHaveLength(5);
    const other = pool.take(10);
    expect(other.buffer).not.toBe(firstBytes);
    pool.give(second);
    pool.give(other);
    expect(pool.idle).toBe(1);
    expect(pool.take(100_000).length).toBe(100_000);
  });

  it('renders an empty page', () => {
    expect(renderListingPage({ items: [], nextCursor: null }).toString()).toBe(
      '{"items":[],"next_cursor":null}',
    );
  });

  it.each([
    [
      'unicode and escapes',
      { market_hash_name: '★ StatTrak™ Karambit | "Quote" \\ (Factory New)', image: 'https://x.test/é' },
    ],
    [
      'key-like text in values',
      { id: 'a,"market_hash_name":b', market_hash_name: 'x,"doppler_phase":"y","category":' },
    ],
    [
      'nulls everywhere',
      {
        wear: null,
        float_value: null,
        paint_seed: null,
        inspect_link: null,
        listed_at: null,
        refund_percent: null,
      },
    ],
    [
      'a middle too long to share around',
      {
        stickers: Array.from({ length: 5 }, (_, slot) => ({
          name: 'x'.repeat(9000),
          image: 'https://x.test/s',
          slot,
          wear: 0.5,
        })),
      },
    ],
  ])('prepares exactly the bytes of JSON.stringify (%s)', (_label, overrides) => {
    const listing = make(overrides as Partial<Listing>);
    const row = new ListingIndex().upsert(CS2, listing);
    const expected = Buffer.from(JSON.stringify(orderListingKeys(listing)));
    expect(row.json.equals(expected)).toBe(true);
    expect(row.jsonLength).toBe(expected.length);
    expect(row.listing).toEqual(orderListingKeys(listing));
  });

  it('writes the keys in the Listing schema order, whatever order they came in', () => {
    const listing = make({ market_hash_name: '★ StatTrak™ Karambit | Doppler (Factory New)' });
    const shuffled = Object.fromEntries(
      Object.entries({ ...listing, extra: 1 }).reverse(),
    ) as unknown as Listing;
    const row = new ListingIndex().upsert(CS2, shuffled);
    const parsed = JSON.parse(row.json.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(Object.keys(listingSchema.shape));
    expect(parsed).toEqual(orderListingKeys(listing));
  });
});
