import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '../../src/contract/listing.js';
import type { PriceRow } from '../../src/contract/market.js';
import { churnUntil } from '../helpers/churn.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 3000, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account());
});
afterAll(() => t.close());

/** minAsk rows computed from the listings, independently of the service's grouping. */
function referenceRows(listings: readonly Listing[]): Map<string, { min: number; count: number }> {
  const groups = new Map<string, { min: number; count: number }>();
  for (const l of listings) {
    const k = `${l.market_hash_name}|${l.wear}|${l.doppler_phase}`;
    const cents = Math.round(l.price_usd * 100);
    const g = groups.get(k);
    groups.set(k, g ? { min: Math.min(g.min, cents), count: g.count + 1 } : { min: cents, count: 1 });
  }
  return groups;
}

async function readAllPrices(query: string, auth = true): Promise<PriceRow[]> {
  const rows: PriceRow[] = [];
  let cursor: string | null = null;
  do {
    const path = `${auth ? '' : '/public'}/prices?limit=500${query}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await t.call(path, auth ? { key } : {});
    expect(res.status).toBe(200);
    rows.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return rows;
}

describe('GET /v1/prices', () => {
  it.each([730, 570, 252490])(
    'gives one row per name, wear and phase with the cheapest ask and the count (appId %i)',
    async (appId) => {
      const listings = await readAllListings(t, key, `&appId=${appId}`);
      const expected = referenceRows(listings);
      const rows = await readAllPrices(`&appId=${appId}`);
      expect(rows.length).toBe(expected.size);
      for (const row of rows) {
        const ref = expected.get(`${row.market_hash_name}|${row.wear}|${row.doppler_phase}`);
        expect(ref).toBeDefined();
        expect(Math.round(row.min_ask_usd * 100)).toBe(ref?.min);
        expect(row.listed_count).toBe(ref?.count);
      }
    },
  );

  it('keeps Doppler phases apart', async () => {
    const rows = await readAllPrices('&search=doppler');
    const phased = rows.filter((r) => r.doppler_phase !== null);
    expect(phased.length).toBeGreaterThan(0);
    expect(phased.every((r) => r.market_hash_name.includes('Doppler'))).toBe(true);
  });

  it('filters by exact name (case-insensitive), search and CS2 wear', async () => {
    const all = await readAllPrices('');
    const one = all.find((r) => r.wear === 'Field-Tested') as PriceRow;
    const byName = await t.call(`/prices?name=${encodeURIComponent(one.market_hash_name.toLowerCase())}`, {
      key,
    });
    expect(byName.body.items.every((r: PriceRow) => r.market_hash_name === one.market_hash_name)).toBe(true);
    const worn = await readAllPrices('&wear=Battle-Scarred');
    expect(worn.length).toBe(all.filter((r) => r.wear === 'Battle-Scarred').length);
  });

  it('answers 400 invalid_param for wear with another game', async () => {
    const res = await t.call('/prices?appId=570&wear=Field-Tested', { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
  });

  it('answers 402 insufficient_settled_balance for an account with no settled funds', async () => {
    const { key: unfunded } = await t.account({ balance_usd: 0 });
    const res = await t.call('/prices', { key: unfunded });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'insufficient_settled_balance', balance_usd: 0, settled_usd: 0 });
    const { key: unsettled } = await t.account({ balance_usd: 50, settled_usd: 0 });
    const pending = await t.call('/prices', { key: unsettled });
    expect(pending.body).toMatchObject({
      code: 'insufficient_settled_balance',
      balance_usd: 50,
      settled_usd: 0,
    });
    expect((await t.call('/balance', { key: unfunded })).status).toBe(200);
    expect((await t.call('/health')).status).toBe(200);
  });

  it('serves the same list at /public/prices without a key', async () => {
    expect(await readAllPrices('&appId=570', false)).toEqual(await readAllPrices('&appId=570'));
  });

  it('lags the live listings until the next rebuild, and says how old it is', async () => {
    const before = await t.call('/health');
    await churnUntil(t, { changes: 150, rate: 500 });
    const stale = await readAllPrices('');
    t.clock.advance(30_000);
    expect((await t.call('/health')).body.price_list_age_seconds).toBeGreaterThanOrEqual(30);
    const rebuilt = await t.sandbox('/prices/rebuild', {});
    expect(rebuilt.status).toBe(200);
    // Read at once: the pages below take wall time, which the service clock follows.
    const health = await t.call('/health');
    const fresh = await readAllPrices('');
    const expected = referenceRows(await readAllListings(t, key));
    expect(fresh.length).toBe(expected.size);
    expect(fresh).not.toEqual(stale);
    expect(health.body.price_list_age_seconds).toBe(0);
    expect(health.body.groups).toBeGreaterThan(0);
    expect(before.body.groups).toBeGreaterThan(0);
  });
});
