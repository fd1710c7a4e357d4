/** Answers one `/listings` page from a game's orderings: plan the candidates, filter, stop one row past the page. */
import type { ListingSort } from '../../contract/listing.js';
import type { GameListings } from './game-listings.js';
import type { IndexedListing } from './indexed-listing.js';
import { decodeCursor, encodeCursor } from './listing-cursor.js';
import {
  compileFilter,
  compileFilterForNames,
  type ListingFilter,
  type ListingPredicate,
  searchTokens,
} from './listing-filter.js';
import { LISTING_ORDERS, type SortKey } from './listing-order.js';
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

type Visit = (listing: IndexedListing) => boolean;

/**
 * Answers `search` over `game` (undefined when the game has no listings).
 * @throws ApiError invalid_param for a cursor that is malformed or made for another sort or game.
 */
export function queryListings(game: GameListings | undefined, search: ListingSearch): ListingPageResult {
  if (!Number.isInteger(search.limit) || search.limit < 1) {
    throw new RangeError(`limit must be a positive integer, got ${search.limit}`);
  }
  const after = search.cursor === undefined ? null : decodeCursor(search.cursor, search.sort, search.appId);
  if (game === undefined) return { items: [], nextCursor: null };
  const rows = findRows(game, search, after, search.limit + 1);
  if (rows.length <= search.limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, search.limit);
  const last = items[items.length - 1] as IndexedListing;
  return { items, nextCursor: encodeCursor(search.sort, search.appId, last) };
}

/** The first `want` matching rows after `after`, in the order of `search.sort`. */
function findRows(
  game: GameListings,
  search: ListingSearch,
  after: SortKey | null,
  want: number,
): IndexedListing[] {
  const compare = LISTING_ORDERS[search.sort];
  if (search.name !== undefined) {
    const group = game.byName.get(search.name.toLowerCase());
    if (group === undefined) return [];
    return pickFirst([group], compileFilter(search), compare, after, want);
  }
  const tokens = search.search === undefined ? [] : searchTokens(search.search);
  if (tokens.length === 0) return scan(game, search, compileFilter(search), after, want);
  const names = game.namesMatching(tokens);
  const keep = compileFilterForNames(search, names);
  const groups = gatherGroups(game, names, candidateBudget(want, game.size));
  return groups === null
    ? scan(game, search, keep, after, want)
    : pickFirst(groups, keep, compare, after, want);
}

/**
 * Most candidates worth sorting instead of walking the ordering. A walk visits about
 * want * size / matches rows before it fills a page, so gathering wins while matches² stays under
 * a few times want * size.
 */
function candidateBudget(want: number, size: number): number {
  return Math.max(4096, Math.sqrt(4 * want * size));
}

/** The name groups of `names`, or null when they hold more than `budget` listings. */
function gatherGroups(
  game: GameListings,
  names: ReadonlySet<string>,
  budget: number,
): Set<IndexedListing>[] | null {
  const groups: Set<IndexedListing>[] = [];
  let total = 0;
  for (const name of names) {
    const group = game.byName.get(name);
    if (group === undefined) continue;
    total += group.size;
    if (total > budget) return null;
    groups.push(group);
  }
  return groups;
}

/**
 * The first `want` rows of the groups in `compare` order that pass `keep` and come after `after`,
 * without sorting all of them: sort a buffer of 2 * want, keep the best `want`, skip anything not
 * better than the worst kept.
 */
function pickFirst(
  groups: Iterable<Iterable<IndexedListing>>,
  keep: ListingPredicate,
  compare: Comparator<SortKey>,
  after: SortKey | null,
  want: number,
): IndexedListing[] {
  let buffer: IndexedListing[] = [];
  let worst: IndexedListing | null = null;
  for (const group of groups) {
    for (const l of group) {
      if ((after !== null && compare(l, after) <= 0) || (worst !== null && compare(l, worst) >= 0)) continue;
      if (!keep(l)) continue;
      buffer.push(l);
      if (buffer.length < 2 * want) continue;
      buffer.sort(compare);
      buffer = buffer.slice(0, want);
      worst = buffer[want - 1] as IndexedListing;
    }
  }
  buffer.sort(compare);
  return buffer.length > want ? buffer.slice(0, want) : buffer;
}

/** Walks the ordering of the sort from the cursor (and a price bound) until `want` rows pass `keep`. */
function scan(
  game: GameListings,
  search: ListingSearch,
  keep: ListingPredicate,
  after: SortKey | null,
  want: number,
): IndexedListing[] {
  const rows: IndexedListing[] = [];
  const { startsAt, isPast } = walkBounds(search, after);
  const visit: Visit = (l) => {
    if (isPast(l)) return false;
    if (keep(l)) rows.push(l);
    return rows.length < want;
  };
  game.order(search.sort).scanFrom(startsAt, visit);
  return rows;
}

/**
 * Where a walk of the sort's ordering starts (past the cursor, at the near price bound) and the
 * test that ends it (past the far price bound, or listed_at down to available_after under newest).
 * Both are monotone over the ordering.
 */
function walkBounds(search: ListingSearch, after: SortKey | null): { startsAt: Visit; isPast: Visit } {
  const compare = LISTING_ORDERS[search.sort];
  const { minPriceCents: min, maxPriceCents: max, availableAfterMs: since } = search;
  let start: Visit | null = null;
  let isPast: Visit = () => false;
  if (search.sort === 'price_asc') {
    if (min !== undefined) start = (l) => l.priceCents >= min;
    if (max !== undefined) isPast = (l) => l.priceCents > max;
  } else if (search.sort === 'price_desc') {
    if (max !== undefined) start = (l) => l.priceCents <= max;
    if (min !== undefined) isPast = (l) => l.priceCents < min;
  } else if (search.sort === 'newest' && since !== undefined) {
    isPast = (l) => l.listedAtMs === null || l.listedAtMs <= since;
  }
  if (after === null) return { startsAt: start ?? (() => true), isPast };
  const afterCursor: Visit = (l) => compare(l, after) > 0;
  const bound = start;
  return { startsAt: bound === null ? afterCursor : (l) => afterCursor(l) && bound(l), isPast };
}
