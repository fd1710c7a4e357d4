/**
 * The `/listings` query checked by hand, for the hot path: the value `listingsQuerySchema` gives
 * for a valid query, or undefined for anything else, which the schema then refuses in its own words.
 */
import { parseQueryTimestamp, QUERY_DECIMAL, QUERY_INTEGER } from '../../../contract/common.js';
import { DELIVERIES, LISTING_SORTS, type ListingsQuery, WEARS } from '../../../contract/listing.js';

/** What a check answers for a value the schema refuses. */
const REFUSED = Symbol('refused');

type Check = (raw: unknown) => unknown;

const text =
  (max: number): Check =>
  (raw) =>
    typeof raw === 'string' && raw.length >= 1 && raw.length <= max ? raw : REFUSED;

const oneOf =
  (values: readonly string[]): Check =>
  (raw) =>
    typeof raw === 'string' && values.includes(raw) ? raw : REFUSED;

const decimal =
  (min: number, max: number): Check =>
  (raw) => {
    if (typeof raw !== 'string' || raw.length > 32 || !QUERY_DECIMAL.test(raw)) return REFUSED;
    const value = Number(raw);
    return value >= min && value <= max ? value : REFUSED;
  };

const integer =
  (min: number, max: number): Check =>
  (raw) => {
    if (typeof raw !== 'string' || raw.length > 16 || !QUERY_INTEGER.test(raw)) return REFUSED;
    const value = Number(raw);
    return Number.isSafeInteger(value) && value >= min && value <= max ? value : REFUSED;
  };

const timestamp: Check = (raw) => (typeof raw === 'string' ? (parseQueryTimestamp(raw) ?? REFUSED) : REFUSED);

const ONLY_OR_EXCLUDE = ['only', 'exclude'];

/** Every parameter of `listingsQuerySchema`, in the schema's order, with its check. */
export const LISTINGS_QUERY_CHECKS: ReadonlyArray<readonly [keyof ListingsQuery, Check]> = [
  ['appId', integer(0, 2 ** 31 - 1)],
  ['search', text(200)],
  ['name', text(300)],
  ['category', text(200)],
  ['rarity', text(200)],
  ['wear', oneOf(WEARS)],
  ['min_price', decimal(0, 1e9)],
  ['max_price', decimal(0, 1e9)],
  ['stat_trak', oneOf(ONLY_OR_EXCLUDE)],
  ['souvenir', oneOf(ONLY_OR_EXCLUDE)],
  ['delivery', oneOf(DELIVERIES)],
  ['min_refund_percent', decimal(0, 100)],
  ['min_float', decimal(0, 1)],
  ['max_float', decimal(0, 1)],
  ['available_after', timestamp],
  ['sort', oneOf(LISTING_SORTS)],
  ['cursor', (raw) => (typeof raw === 'string' && raw.length <= 512 ? raw : REFUSED)],
  ['limit', integer(1, 200)],
];

/** The parsed query when every parameter is valid (unknown ones are left out), else undefined. */
export function parseListingsQuery(data: unknown): ListingsQuery | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const raw = data as Record<string, unknown>;
  const query: Record<string, unknown> = {};
  for (const [name, check] of LISTINGS_QUERY_CHECKS) {
    const value = raw[name];
    if (value === undefined) continue;
    const parsed = check(value);
    if (parsed === REFUSED) return undefined;
    query[name] = parsed;
  }
  return query as ListingsQuery;
}
