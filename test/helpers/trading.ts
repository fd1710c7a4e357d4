/** Helpers of the trading tests: picking listings to buy, buying, moving the clock, reading the ledger. */
import type { Listing } from '../../src/contract/listing.js';
import type { Warehouse } from '../../src/warehouse/index.js';
import type { TestResponse, TestService } from './service.js';

/**
 * Live listings of a game matching a delivery (held ones still locked for an hour or more) and a
 * predicate (by default: platform listings the API can buy), cheapest first among the 200 cheapest.
 */
export async function listingsFor(
  t: TestService,
  key: string,
  options: {
    appId?: number;
    delivery?: 'instant' | 'up_to_12h' | 'hold';
    /** Only listings at this price or above (the query's min_price). */
    minPriceUsd?: number;
    count?: number;
    /** Which listings qualify. @default platform listings the API can buy */
    where?: (listing: Listing) => boolean;
  } = {},
): Promise<Listing[]> {
  const query = new URLSearchParams({ limit: '200', sort: 'price_asc', appId: String(options.appId ?? 730) });
  if (options.delivery) query.set('delivery', options.delivery);
  if (options.minPriceUsd !== undefined) query.set('min_price', String(options.minPriceUsd));
  const page = await t.call(`/listings?${query}`, { key });
  if (page.status !== 200) throw new Error(`listings: ${page.text}`);
  const where = options.where ?? ((l: Listing) => l.source !== 'external' && l.api_purchasable !== false);
  let rows = (page.body.items as Listing[]).filter(where);
  if (options.delivery === 'hold') {
    // Only listings still inside their lock: a lock that has ended delivers at once.
    const now = Date.parse((await t.sandbox('/clock')).body.now);
    rows = rows.filter((l) => l.tradable_at !== null && Date.parse(l.tradable_at) > now + 3_600_000);
  }
  if (rows.length < (options.count ?? 1)) throw new Error(`only ${rows.length} listings found`);
  return rows.slice(0, options.count ?? 1);
}

/** POST /orders. */
export function buy(
  t: TestService,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return t.call('/orders', { key, method: 'POST', body, headers });
}

/** Moves the service clock forward; every piece of work that falls due runs before it answers. */
export async function advance(t: TestService, seconds: number): Promise<void> {
  const moved = await t.sandbox('/clock', { advance_seconds: seconds });
  if (moved.status !== 200) throw new Error(`clock: ${moved.text}`);
}

/** Every ledger row of the key's account, newest first. */
export function ledgerOf(t: TestService, key: string): Promise<Record<string, any>[]> {
  return everyRowOf(t, key, '/transactions');
}

/** Every row of a `{ data, meta: { next_cursor } }` list of the key's account (`/orders`, `/p2p/listings`, …), page by page. */
export async function everyRowOf(t: TestService, key: string, path: string): Promise<Record<string, any>[]> {
  const rows: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const page: TestResponse = await t.call(
      `${path}?limit=100${cursor === null ? '' : `&cursor=${cursor}`}`,
      {
        key,
      },
    );
    if (page.status !== 200) throw new Error(`GET ${path}: ${page.text}`);
    rows.push(...page.body.data);
    cursor = page.body.meta.next_cursor;
  } while (cursor !== null);
  return rows;
}

/** Cents of a USD amount. */
export function cents(usd: number): number {
  return Math.round(usd * 100);
}

/** Checks the ledger invariant of an account: balance = sum of rows, nothing negative, settled ≤ balance. */
export async function ledgerProblems(t: TestService, key: string): Promise<string[]> {
  const balance = (await t.call('/balance', { key })).body;
  const rows = await ledgerOf(t, key);
  const sum = rows.reduce((total, r) => total + cents(r.amount_usd), 0);
  const problems: string[] = [];
  if (sum !== cents(balance.balance_usd))
    problems.push(`ledger sums to ${sum}, balance ${balance.balance_usd}`);
  if (balance.balance_usd < 0) problems.push(`negative balance ${balance.balance_usd}`);
  if (balance.settled_usd > balance.balance_usd)
    problems.push(`settled ${balance.settled_usd} above balance`);
  if (rows[0] && cents(rows[0].balance_after_usd) !== cents(balance.balance_usd))
    problems.push(`last row's balance_after ${rows[0].balance_after_usd} is not the balance`);
  return problems;
}

/** The last day's closing balance of fct_account_daily and the service's GET /balance, both as `123.45`. */
export async function closingAndBalance(
  t: TestService,
  key: string,
  warehouse: Warehouse,
): Promise<{ closing: unknown; balance: string }> {
  const balance = (await t.call('/balance', { key })).body.balance_usd as number;
  const [last] = await warehouse.query(
    'SELECT CAST(closing_balance_usd AS VARCHAR) AS c FROM fct_account_daily ORDER BY day DESC LIMIT 1',
  );
  return { closing: last?.c, balance: balance.toFixed(2) };
}
