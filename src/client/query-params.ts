/** Typed query parameters of the paged reads, and their encoding into a query string. */
import type { TRANSACTION_TYPES } from '../contract/account.js';
import type { Delivery, ListingSort, Wear } from '../contract/listing.js';
import type { OrderStatus } from '../contract/order.js';
import type { P2PListingStatus } from '../contract/p2p.js';
import type { SellOrderStatus } from '../contract/sell.js';
import type { DeliveryStatus } from '../contract/webhook.js';

/** `only` or `exclude`, for the StatTrak and Souvenir filters (CS2 only). */
export type OnlyOrExclude = 'only' | 'exclude';

/** Parameters of `GET /listings`; every one is optional, as in the specification. */
export interface ListingsParams {
  /** 730 CS2 (default), 570 Dota 2, 252490 Rust. */
  appId?: number | undefined;
  /** Full-text match on the market hash name. */
  search?: string | undefined;
  /** Exact market_hash_name, case-insensitive; wins over search. */
  name?: string | undefined;
  category?: string | undefined;
  /** CS2 only. */
  wear?: Wear | undefined;
  rarity?: string | undefined;
  /** USD. */
  min_price?: number | undefined;
  /** USD. */
  max_price?: number | undefined;
  /** CS2 only. */
  min_float?: number | undefined;
  /** CS2 only. */
  max_float?: number | undefined;
  delivery?: Delivery | undefined;
  /** 0-100; listings without a published figure are excluded. */
  min_refund_percent?: number | undefined;
  /** CS2 only. */
  stat_trak?: OnlyOrExclude | undefined;
  /** CS2 only. */
  souvenir?: OnlyOrExclude | undefined;
  /** ISO 8601 timestamp: only listings that entered the catalogue after it; CS2 only, pair with sort newest. */
  available_after?: string | undefined;
  /** id (default), newest (CS2 only), price_asc, price_desc. */
  sort?: ListingSort | undefined;
  /** next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
  /** Rows per page, 1-200. @default 50 */
  limit?: number | undefined;
}

/** Parameters of `GET /prices`. */
export interface PricesParams {
  /** 730 CS2 (default), 570 Dota 2, 252490 Rust. */
  appId?: number | undefined;
  search?: string | undefined;
  /** Exact market_hash_name, case-insensitive; wins over search. */
  name?: string | undefined;
  /** CS2 only. */
  wear?: Wear | undefined;
  /** next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
  /** Rows per page, 1-5000. @default 1000 */
  limit?: number | undefined;
}

/** Parameters of `GET /transactions`. */
export interface TransactionsParams {
  /** Rows per page, 1-100. @default 50 */
  limit?: number | undefined;
  type?: (typeof TRANSACTION_TYPES)[number] | undefined;
  /** Unix seconds: entries created at or after. */
  from?: number | undefined;
  /** Unix seconds: entries created at or before. */
  to?: number | undefined;
  /** meta.next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
}

/** Parameters of `GET /orders`: one game, newest first. */
export interface OrdersParams {
  /** 730 CS2 (default), 570 Dota 2, 252490 Rust. */
  appId?: number | undefined;
  status?: OrderStatus | undefined;
  /** Only the order created with this custom_id (its Idempotency-Key). */
  custom_id?: string | undefined;
  /** meta.next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
  /** Rows per page, 1-100. @default 50 */
  limit?: number | undefined;
  /** The change feed: only orders changed strictly after this ISO 8601 instant, oldest change first. */
  updated_after?: string | undefined;
}

/** Parameters of the change feeds of `GET /p2p/listings` and `GET /sell/orders`. */
export interface ChangeFeedParams {
  /** Only rows changed strictly after this ISO 8601 instant, oldest change first. */
  updated_after?: string | undefined;
  /** meta.next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
  /** Rows per page, 1-100. @default 50 */
  limit?: number | undefined;
}

/** Parameters of `GET /p2p/listings`: the account's listings, newest first, or the change feed. */
export interface P2PListingsParams extends ChangeFeedParams {
  /** Only listings in this status. */
  status?: P2PListingStatus | undefined;
}

/** Parameters of `GET /sell/orders`: the account's sell orders, newest first, or the change feed. */
export interface SellOrdersParams extends ChangeFeedParams {
  /** Only sell orders in this status. */
  status?: SellOrderStatus | undefined;
}

/** Parameters of `GET /webhooks/{id}/deliveries`: newest first. */
export interface DeliveriesParams {
  /** Only deliveries in this status: pending, delivered or failed. */
  status?: DeliveryStatus | undefined;
  /** meta.next_cursor of the previous page, unchanged. */
  cursor?: string | undefined;
  /** Rows per page, 1-100. @default 50 */
  limit?: number | undefined;
}

/** Encodes parameters as `?a=1&b=2` (empty when none), skipping undefined and never using exponents. */
export function toQueryString(params: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params) as Array<[string, unknown]>) {
    if (typeof value === 'number') search.append(name, formatNumber(value));
    else if (typeof value === 'string') search.append(name, value);
  }
  const text = search.toString();
  return text.length === 0 ? '' : `?${text}`;
}

/** The server refuses exponent forms such as `1e-7`; write them out in full. */
function formatNumber(value: number): string {
  const text = String(value);
  if (!/e/i.test(text) || !Number.isFinite(value)) return text;
  return value.toFixed(20).replace(/\.?0+$/, '');
}
