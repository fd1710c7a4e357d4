/** Answers one `/listings` page from a game's orderings: plan the candidates, filter, stop one row past the page. */
import type { ListingSort } from '../../../contract/listing.js';
import type { GameListings } from './game-listings.js';
import type { IndexedListing, ListingRecord } from './indexed-listing.js';
import { decodeCursor, encodeCursor } from './listing-cursor.js';
import { compileFilter, type ListingFilter, type ListingPredicate } from './listing-filter.js';
import type { GroupTable } from './listing-groups.js';
import { LISTING_ORDERS, type SortKey } from './listing-order.js';
import { scanTagged, tagTestOf } from './listing-tags.js';
import type { Comparator } from './sorted-list.js';

/** A validated `/listings` query, with prices in cents and timestamps in epoch milliseconds. */
export interface ListingSearch extends ListingFilter {
  appId: number;
  sort: ListingSort;
  /** Page size, a positive integer (the route allows 1-200). */
  limit: number;
  /** `next_cursor` of the previous page. */
  cursor?: string | undefined;
}

/** One page: the rows, and the cursor of the next page (null when no matching row is left). */
export interface ListingPageResult {
  items: IndexedListing[];
  nextCursor: string | null;
}

/**
 * How many rows a walk rejects by tag in the time it takes to read one row: gathering a name's
 * listings reads every one of them, a walk reads about want * size / count tags.
 */
const TAG_TESTS_PER_READ = 25;

type Test = (listing: ListingRecord) => boolean;

/**
 * Answers `search` over `game` (undefined when the game has no listings); `groups` is the group
 * table of the index the game belongs to.
 * @throws ApiError invalid_param for a cursor that is malformed or made for another sort or game.
 */
export function queryListings(
  game: GameListings | undefined,
  groups: GroupTable,
  search: ListingSearch,
): ListingPageResult {
  if (!Number.isInteger(search.limit) || search.limit < 1) {
    throw new RangeError(`limit must be a positive integer, got ${search.limit}`);
  }
  const after = search.cursor === undefined ? null : decodeCursor(search.cursor, search.sort, search.appId);
  const allowed = groups.allowed(search);
  if (game === undefined || allowed?.count === 0) return { items: [], nextCursor: null };
  const rows = findRows(game, search, allowed?.bits, after, search.limit + 1);
  if (rows.length <= search.limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, search.limit);
  const last = items[items.length - 1] as IndexedListing;
  return { items, nextCursor: encodeCursor(search.sort, search.appId, last) };
}

/**
 * The first `want` matching rows after `after`, in the order of `search.sort`: from the name's
 * listings when `name` is given and they are few, else by walking the ordering. `allowed` is the
 * bitset of the groups the name-level filters allow.
 */
function findRows(
  game: GameListings,
  search: ListingSearch,
  allowed: Uint32Array | undefined,
  after: SortKey | null,
  want: number,
): ListingRecord[] {
  const keep = compileFilter(search);
  if (search.name !== undefined) {
    const named = game.byName.get(search.name.toLowerCase());
    if (named === undefined) return [];
    if (named.size ** 2 * TAG_TESTS_PER_READ <= want * game.size) {
      return pickFirst(named, keep, LISTING_ORDERS[search.sort], after, want);
    }
  }
  return scan(game, search, keep, allowed, after, want);
}

/**
 * The first `want` candidates in `compare` order that pass `keep` and come after `after`, without
 * sorting all of them: sort a buffer of 2 * want, keep the best `want`, skip anything not better
 * than the worst kept.
 */
function pickFirst(
  candidates: Iterable<ListingRecord>,
  keep: ListingPredicate,
  compare: Comparator<SortKey>,
  after: SortKey | null,
  want: number,
): ListingRecord[] {
  let buffer: ListingRecord[] = [];
  let worst: ListingRecord | null = null;
  for (const l of candidates) {
    if ((after !== null && compare(l, after) <= 0) || (worst !== null && compare(l, worst) >= 0)) continue;
    if (!keep(l)) continue;
    buffer.push(l);
    if (buffer.length < 2 * want) continue;
    buffer.sort(compare);
    buffer = buffer.slice(0, want);
    worst = buffer[want - 1] as ListingRecord;
  }
  buffer.sort(compare);
  return buffer.length > want ? buffer.slice(0, want) : buffer;
}

/**
 * Walks the ordering of the sort from the cursor (and a price bound) until `want` rows pass
 * `keep`, skipping rows whose tag shows they cannot pass without reading them.
 */
function scan(
  game: GameListings,
  search: ListingSearch,
  keep: ListingPredicate,
  allowed: Uint32Array | undefined,
  after: SortKey | null,
  want: number,
): ListingRecord[] {
  const rows: ListingRecord[] = [];
  const { startsAt, stopsAt } = walkBounds(search, after);
  const visit = (l: ListingRecord) => {
    if (keep(l)) rows.push(l);
    return rows.length < want;
  };
  scanTagged(game.order(search.sort), startsAt, tagTestOf(search, allowed), stopsAt, visit);
  return rows;
}

/**
 * Where a walk of the sort's ordering starts (past the cursor, at the near price bound) and where
 * it ends (past the far price bound, or listed_at down to available_after under newest). Both
 * tests are monotone over the ordering.
 */
function walkBounds(
  search: ListingSearch,
  after: SortKey | null,
): { startsAt: Test; stopsAt: Test | undefined } {
  const { minPriceCents: min, maxPriceCents: max, availableAfterMs: since } = search;
  let start: Test | undefined;
  let stopsAt: Test | undefined;
  if (search.sort === 'price_asc') {
    if (min !== undefined) start = (l) => l.priceCents >= min;
    if (max !== undefined) stopsAt = (l) => l.priceCents > max;
  } else if (search.sort === 'price_desc') {
    if (max !== undefined) start = (l) => l.priceCents <= max;
    if (min !== undefined) stopsAt = (l) => l.priceCents < min;
  } else if (search.sort === 'newest' && since !== undefined) {
    stopsAt = (l) => l.listedAtMs === null || l.listedAtMs <= since;
  }
  if (after === null) return { startsAt: start ?? (() => true), stopsAt };
  const compare = LISTING_ORDERS[search.sort];
  const pastCursor: Test = (l) => compare(l, after) > 0;
  const bound = start;
  return { startsAt: bound === undefined ? pastCursor : (l) => pastCursor(l) && bound(l), stopsAt };
}
