import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import { compileFilter, type ListingSearch } from '../../src/service/market/listing-index/listing-index.js';
import { Random } from '../../src/service/sim/random.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 4000, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account());
});
afterAll(() => t.close());

const CANDIDATE_FILTERS: [string, Partial<ListingSearch>][] = [
  ['', {}],
  ['category=Rifle', { category: 'Rifle' }],
  ['category=Knife&delivery=instant', { category: 'Knife', delivery: 'instant' }],
  ['min_price=5&max_price=400', { minPriceCents: 500, maxPriceCents: 40_000 }],
  ['wear=Field-Tested', { wear: 'Field-Tested' }],
  ['min_refund_percent=50', { minRefundPercent: 50 }],
  ['stat_trak=only', { statTrak: 'only' }],
  ['search=case', { search: 'case' }],
  ['min_float=0.1&max_float=0.4', { minFloat: 0.1, maxFloat: 0.4 }],
];
const SORTS = ['id', 'newest', 'price_asc', 'price_desc'] as const;

describe('keyset paging while the market churns', () => {
  it('never returns an unchanged row twice and never misses one that stayed live throughout', async () => {
    const random = new Random(42);
    const { catalogue } = t.service.context;
    await t.sandbox('/simulator', { paused: false, rate_per_second: 400 });
    let churned = 0;
    try {
      for (let round = 0; round < 24; round++) {
        const [query, filter] = CANDIDATE_FILTERS[Math.floor(random.next() * CANDIDATE_FILTERS.length)] as [
          string,
          Partial<ListingSearch>,
        ];
        const sort = SORTS[Math.floor(random.next() * SORTS.length)] as string;
        const limit = 20 + Math.floor(random.next() * 180);
        const matches = compileFilter(filter);
        const liveAtStart = new Set([...catalogue.index.values(730)].filter(matches).map((l) => l.id));
        const touched = new Set<string>();
        const stop = catalogue.onChange((batch) => {
          for (const change of batch) touched.add(change.entry.id);
        });
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const res = await t.call(
            `/listings?sort=${sort}&limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`,
            { key },
          );
          expect(res.status).toBe(200);
          seen.push(...res.body.items.map((l: Listing) => l.id));
          cursor = res.body.next_cursor;
          // Let the churn land between pages, as it would between a real client's requests.
          await new Promise((r) => setTimeout(r, 3));
        } while (cursor);
        stop();
        // A listing re-listed during the scan comes back with a new price and listed_at, so it may
        // rightly show up again further on; any other repeat is a paging bug.
        const repeated = seen.filter((id, i) => seen.indexOf(id) !== i && !touched.has(id));
        expect(repeated, `duplicates with ${sort} ${query}`).toEqual([]);
        const seenSet = new Set(seen);
        const missing = [...liveAtStart].filter((id) => !touched.has(id) && !seenSet.has(id));
        expect(missing, `missing with ${sort} ${query}`).toEqual([]);
        churned += touched.size;
      }
    } finally {
      await t.sandbox('/simulator', { paused: true });
    }
    expect(churned).toBeGreaterThan(100);
  });
});
