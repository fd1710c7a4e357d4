/** The opaque keyset cursor of `/listings`: base64url of a small JSON holding a position in one ordering. */
import { ApiError } from '../../../contract/api-error.js';
import { LISTING_SORTS, type ListingSort } from '../../../contract/listing.js';
import type { SortKey } from './listing-order.js';

const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PASS_BACK =
  'pass next_cursor back unchanged, with the same appId and sort as the request that returned it';

/** What a cursor says: after which row of which ordering of which game the next page starts. */
interface CursorPayload {
  v: typeof VERSION;
  a: number;
  s: ListingSort;
  i: string;
  /** price in cents, for the price sorts. */
  p?: number;
  /** listed_at in epoch ms (null when the row has none), for sort=newest. */
  t?: number | null;
}

/** Encodes the position just after `last` in the ordering `sort` of game `appId`. */
export function encodeCursor(sort: ListingSort, appId: number, last: SortKey): string {
  const payload: CursorPayload = { v: VERSION, a: appId, s: sort, i: last.id };
  if (sort === 'price_asc' || sort === 'price_desc') payload.p = last.priceCents;
  if (sort === 'newest') payload.t = last.listedAtMs;
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same sort and game.
 * @throws ApiError invalid_param when the cursor is malformed, not ours, or made for another sort or game.
 */
export function decodeCursor(cursor: string, sort: ListingSort, appId: number): SortKey {
  const payload = parsePayload(cursor);
  if (payload === null) {
    throw new ApiError('invalid_param', `cursor is not a next_cursor of GET /listings; ${PASS_BACK}`);
  }
  if (payload.s !== sort) {
    throw new ApiError(
      'invalid_param',
      `cursor was made for sort=${payload.s}, not sort=${sort}; ${PASS_BACK}`,
    );
  }
  if (payload.a !== appId) {
    throw new ApiError(
      'invalid_param',
      `cursor was made for appId=${payload.a}, not appId=${appId}; ${PASS_BACK}`,
    );
  }
  return { id: payload.i, priceCents: payload.p ?? 0, listedAtMs: payload.t ?? null };
}

function parsePayload(cursor: string): CursorPayload | null {
  if (!BASE64URL.test(cursor)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  return isPayload(value) ? value : null;
}

function isPayload(value: unknown): value is CursorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  if (c.v !== VERSION || !Number.isSafeInteger(c.a) || typeof c.i !== 'string') return false;
  if (!(LISTING_SORTS as readonly unknown[]).includes(c.s)) return false;
  const keys = Object.keys(c).length;
  switch (c.s as ListingSort) {
    case 'id':
      return keys === 4;
    case 'newest':
      return keys === 5 && (c.t === null || Number.isSafeInteger(c.t));
    default:
      return keys === 5 && Number.isSafeInteger(c.p);
  }
}
