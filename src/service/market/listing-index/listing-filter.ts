/** The listing filters of `/listings` (and the listing stream) compiled into one predicate. */
import { usdToCents } from '../../../contract/common.js';
import type { Delivery, Listing, Wear } from '../../../contract/listing.js';
import { nameHasTokens, searchTokens } from './search-tokens.js';

/** Keep only (`only`) or drop (`exclude`) the listings with a property. */
export type OnlyOrExclude = 'only' | 'exclude';

/** The filter fields of a listing search. Left out (or undefined) means "no restriction". */
export interface ListingFilter {
  /** Exact market_hash_name, case-insensitive; wins over `search`. */
  name?: string | undefined;
  /** Every whitespace-separated token must occur in market_hash_name, case-insensitive. */
  search?: string | undefined;
  /** Exact category, case-insensitive. */
  category?: string | undefined;
  /** Exact rarity, case-insensitive. */
  rarity?: string | undefined;
  wear?: Wear | undefined;
  /** Inclusive lower bound on the price in cents. */
  minPriceCents?: number | undefined;
  /** Inclusive upper bound on the price in cents. */
  maxPriceCents?: number | undefined;
  /** Inclusive lower bound on float_value; listings without a float are excluded. */
  minFloat?: number | undefined;
  /** Inclusive upper bound on float_value; listings without a float are excluded. */
  maxFloat?: number | undefined;
  delivery?: Delivery | undefined;
  /** Inclusive lower bound on refund_percent; listings without a figure are excluded. */
  minRefundPercent?: number | undefined;
  statTrak?: OnlyOrExclude | undefined;
  souvenir?: OnlyOrExclude | undefined;
  /** listed_at strictly after this epoch millisecond; listings without listed_at are excluded. */
  availableAfterMs?: number | undefined;
}

/** The fields of a listing that filters read (the index's records carry them prepared). */
export interface FilterFields {
  /** market_hash_name in lower case. */
  readonly nameLower: string;
  readonly categoryLower: string;
  readonly rarityLower: string;
  readonly wear: Wear | null;
  readonly priceCents: number;
  /** float_value. */
  readonly float: number | null;
  readonly delivery: Delivery;
  readonly refundPercent: number | null;
  /** market_hash_name contains `StatTrak™`. */
  readonly statTrak: boolean;
  /** market_hash_name starts with `Souvenir `. */
  readonly souvenir: boolean;
  /** listed_at in epoch milliseconds. */
  readonly listedAtMs: number | null;
}

/** A compiled filter. */
export type ListingPredicate = (listing: FilterFields) => boolean;

/** The filter fields of a Listing object (for listings that are not in the index, such as logged events). */
export function filterFieldsOf(listing: Listing): FilterFields {
  return {
    nameLower: listing.market_hash_name.toLowerCase(),
    categoryLower: listing.category.toLowerCase(),
    rarityLower: listing.rarity.toLowerCase(),
    wear: listing.wear,
    priceCents: usdToCents(listing.price_usd),
    float: listing.float_value,
    delivery: listing.delivery,
    refundPercent: listing.refund_percent,
    statTrak: listing.market_hash_name.includes('StatTrak™'),
    souvenir: listing.market_hash_name.startsWith('Souvenir '),
    listedAtMs: listing.listed_at === null ? null : Date.parse(listing.listed_at),
  };
}

/**
 * Compiles a filter into one predicate; compile once, then call it per listing.
 * @example
 * const keep = compileFilter({ category: 'rifle', maxPriceCents: 5000 });
 * const cheapRifles = listings.filter(keep);
 */
export function compileFilter(filter: ListingFilter): ListingPredicate {
  return buildPredicate(filter, nameTest(filter));
}

/** True when the filter restricts nothing (every listing passes). */
export function isEmptyFilter(filter: ListingFilter): boolean {
  return Object.values(filter).every((value) => value === undefined);
}

/** True when `listing` passes `filter`. Compile with {@link compileFilter} when testing many listings. */
export function matchesFilters(listing: FilterFields, filter: ListingFilter): boolean {
  return compileFilter(filter)(listing);
}

function nameTest(filter: ListingFilter): ((nameLower: string) => boolean) | null {
  if (filter.name !== undefined) {
    const wanted = filter.name.toLowerCase();
    return (nameLower) => nameLower === wanted;
  }
  const tokens = filter.search === undefined ? [] : searchTokens(filter.search);
  return tokens.length === 0 ? null : (nameLower) => nameHasTokens(nameLower, tokens);
}

/** One closure testing every restriction, with neutral bounds for the ones left out. */
function buildPredicate(
  filter: ListingFilter,
  name: ((nameLower: string) => boolean) | null,
): ListingPredicate {
  const minPrice = filter.minPriceCents ?? Number.NEGATIVE_INFINITY;
  const maxPrice = filter.maxPriceCents ?? Number.POSITIVE_INFINITY;
  const byFloat = filter.minFloat !== undefined || filter.maxFloat !== undefined;
  const minFloat = filter.minFloat ?? Number.NEGATIVE_INFINITY;
  const maxFloat = filter.maxFloat ?? Number.POSITIVE_INFINITY;
  const category = filter.category?.toLowerCase() ?? null;
  const rarity = filter.rarity?.toLowerCase() ?? null;
  const wear = filter.wear ?? null;
  const delivery = filter.delivery ?? null;
  const minRefund = filter.minRefundPercent ?? null;
  const statTrak = filter.statTrak === undefined ? null : filter.statTrak === 'only';
  const souvenir = filter.souvenir === undefined ? null : filter.souvenir === 'only';
  const after = filter.availableAfterMs ?? null;
  return (l) =>
    l.priceCents >= minPrice &&
    l.priceCents <= maxPrice &&
    (category === null || l.categoryLower === category) &&
    (rarity === null || l.rarityLower === rarity) &&
    (wear === null || l.wear === wear) &&
    (delivery === null || l.delivery === delivery) &&
    (statTrak === null || l.statTrak === statTrak) &&
    (souvenir === null || l.souvenir === souvenir) &&
    (!byFloat || (l.float !== null && l.float >= minFloat && l.float <= maxFloat)) &&
    (minRefund === null || (l.refundPercent !== null && l.refundPercent >= minRefund)) &&
    (after === null || (l.listedAtMs !== null && l.listedAtMs > after)) &&
    (name === null || name(l.nameLower));
}
