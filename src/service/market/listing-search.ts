/** Validated `/listings` and `/listings/stream` queries turned into index searches and filters, with their rules. */
import { ApiError } from '../../contract/api-error.js';
import { APP_IDS } from '../../contract/common.js';
import type { ListingsQuery, StreamQuery } from '../../contract/listing.js';
import { resolveAppId } from '../http/app-id.js';
import type { ListingFilter, ListingSearch } from './listing-index/listing-index.js';

const CS2_ONLY_LISTING_PARAMS = [
  'wear',
  'min_float',
  'max_float',
  'stat_trak',
  'souvenir',
  'available_after',
] as const;

/** Turns a validated `/listings` query into an index search, enforcing the CS2-only rules. */
export function listingSearchOf(query: ListingsQuery, readable: readonly number[]): ListingSearch {
  const appId = resolveAppId(query.appId, readable);
  if (appId !== APP_IDS.cs2) {
    const cs2Only = CS2_ONLY_LISTING_PARAMS.find((name) => query[name] !== undefined);
    if (cs2Only)
      throw new ApiError('invalid_param', `${cs2Only} is CS2-only; it cannot be used with appId ${appId}`);
    if (query.sort === 'newest')
      throw new ApiError('invalid_param', `sort=newest is CS2-only; use id, price_asc or price_desc`);
  }
  checkRange('min_float', query.min_float, 'max_float', query.max_float);
  // Every field set, undefined when absent: one object shape for every search keeps the hot path monomorphic.
  return {
    appId,
    sort: query.sort ?? 'id',
    limit: query.limit ?? 50,
    cursor: query.cursor,
    search: query.search,
    ...listingFilterOf(query),
    minFloat: query.min_float,
    maxFloat: query.max_float,
    availableAfterMs: query.available_after,
  };
}

/** The filters `/listings` and `/listings/stream` share, validated the same way. */
export function listingFilterOf(query: StreamQuery): ListingFilter {
  checkRange('min_price', query.min_price, 'max_price', query.max_price);
  return {
    name: query.name,
    category: query.category,
    rarity: query.rarity,
    wear: query.wear,
    minPriceCents: query.min_price === undefined ? undefined : Math.ceil(query.min_price * 100 - 1e-6),
    maxPriceCents: query.max_price === undefined ? undefined : Math.floor(query.max_price * 100 + 1e-6),
    delivery: query.delivery,
    minRefundPercent: query.min_refund_percent,
    statTrak: query.stat_trak,
    souvenir: query.souvenir,
  };
}

function checkRange(
  minName: string,
  min: number | undefined,
  maxName: string,
  max: number | undefined,
): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw new ApiError('invalid_param', `${minName} (${min}) is greater than ${maxName} (${max})`);
  }
}
