import { describe, expect, it } from 'vitest';
import type { Listing } from '../../../../src/contract/listing.js';
import {
  ListingIndex,
  type ListingSearch,
  PageBufferPool,
  renderListingPage,
} from '../../../../src/service/market/listing-index/listing-index.js';
import { ListingPageCache } from '../../../../src/service/market/listing-index/listing-page-cache.js';
import { createListingFactory } from '../../../helpers/listing-factory.js';

const CS2 = 730;

function setup(count = 40) {
  const make = createListingFactory({ seed: 21 });
  const index = new ListingIndex();
  const listings: Listing[] = Array.from({ length: count }, () => make());
  for (const l of listings) index.upsert(CS2, l);
  return { index, listings, make };
}

/** What rendering the page now gives, without any cache. */
const fresh = (index: ListingIndex, search: ListingSearch) => renderListingPage(index.query(search));

describe('ListingPageCache', () => {
  const search: ListingSearch = { appId: CS2, sort: 'price_asc', limit: 10 };

  it('keeps a page from its second request on and serves the same bytes while the index is unchanged', () => {
    const { index } = setup();
    const cache = new ListingPageCache(index);
    const first = cache.page(search);
    expect(first.pooled).toBe(true);
    expect(first.body.equals(fresh(index, search))).toBe(true);
    cache.sent(first.body);
    const second = cache.page(search);
    expect(second.pooled).toBe(false);
    expect(cache.page(search).body).toBe(second.body);
    expect(cache.page({ ...search, cursor: undefined }).body).toBe(second.body);
    expect(second.body.equals(fresh(index, search))).toBe(true);
    expect(cache.stats).toEqual({ pages: 1, bytes: second.body.length });
  });

  it.each([
    [
      'a listing is added',
      (index: ListingIndex, _l: Listing[], make: () => Listing) => index.upsert(CS2, make()),
    ],
    ['a listing is removed', (index: ListingIndex, l: Listing[]) => index.remove((l[3] as Listing).id)],
    [
      'a listing is repriced',
      (index: ListingIndex, l: Listing[]) => index.upsert(CS2, { ...(l[5] as Listing), price_usd: 0.01 }),
    ],
  ])('renders the page again once %s', (_change, change) => {
    const { index, listings, make } = setup();
    const cache = new ListingPageCache(index);
    cache.page(search);
    const kept = cache.page(search).body;
    change(index, listings, make);
    const after = cache.page(search);
    expect(after.body).not.toBe(kept);
    expect(after.pooled).toBe(false);
    expect(after.body.equals(fresh(index, search))).toBe(true);
    expect(cache.page(search).body).toBe(after.body);
  });

  it('tells searches apart by every field', () => {
    const { index } = setup(200);
    const cache = new ListingPageCache(index);
    const searches: ListingSearch[] = [
      search,
      { ...search, limit: 11 },
      { ...search, sort: 'price_desc' },
      { ...search, category: 'Rifle' },
      { ...search, minPriceCents: 500 },
      { ...search, maxFloat: 0.5 },
      { ...search, delivery: 'instant' },
      { ...search, statTrak: 'exclude' },
      { ...search, availableAfterMs: 0 },
      { ...search, cursor: index.query(search).nextCursor ?? undefined },
    ];
    for (const s of [...searches, ...searches]) cache.page(s);
    for (const s of searches) expect(cache.page(s).body.equals(fresh(index, s))).toBe(true);
    expect(cache.stats.pages).toBe(searches.length);
  });

  it('drops the least recently used pages past its byte budget, and renders them again on request', () => {
    const { index } = setup(200);
    const one = fresh(index, search).length;
    const cache = new ListingPageCache(index, { maxBytes: one * 2 + 10 });
    const sorts = ['price_asc', 'price_desc', 'id'] as const;
    for (const sort of [...sorts, ...sorts]) cache.page({ ...search, sort });
    expect(cache.stats.pages).toBeLessThanOrEqual(2);
    expect(cache.stats.bytes).toBeLessThanOrEqual(one * 2 + 10);
    expect(cache.page({ ...search, sort: 'price_asc' }).body.equals(fresh(index, search))).toBe(true);
  });

  it('forgets queries seen once beyond maxSeen, so a walk over many pages keeps none of them', () => {
    const { index } = setup(200);
    const pool = new PageBufferPool({ keep: 4 });
    const cache = new ListingPageCache(index, { maxSeen: 2, pool });
    const limits = [1, 2, 3, 4];
    for (const limit of [...limits, ...limits]) {
      const page = cache.page({ ...search, limit });
      expect(page.pooled).toBe(true);
      cache.sent(page.body);
    }
    expect(cache.stats.pages).toBe(0);
    expect(pool.idle).toBe(1);
  });

  it('throws invalid_param for a bad cursor and keeps nothing for it', () => {
    const { index } = setup();
    const cache = new ListingPageCache(index);
    for (let i = 0; i < 2; i++) {
      expect(() => cache.page({ ...search, cursor: 'nope' })).toThrow(/cursor/);
    }
    expect(cache.stats.pages).toBe(0);
  });
});
