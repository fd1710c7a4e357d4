/** The live listings of one game: one ordering per sort, and the listings grouped by lower-case name. */
import { LISTING_SORTS, type ListingSort } from '../../contract/listing.js';
import type { IndexedListing } from './indexed-listing.js';
import { nameHasTokens } from './listing-filter.js';
import { LISTING_ORDERS } from './listing-order.js';
import { orderByNumber } from './order-by-number.js';
import { SortedList } from './sorted-list.js';

/** How many `search` texts keep their resolved name sets. */
const SEARCH_CACHE_SIZE = 256;

interface ResolvedSearch {
  tokens: readonly string[];
  names: Set<string>;
}

/**
 * The listings of one game, kept in every ordering of `/listings`. Additions wait in a pending
 * list until the next read of an ordering; when they are many (a bulk load) the orderings are
 * rebuilt at once, which is far faster than a million single inserts.
 */
export class GameListings {
  #orders: Record<ListingSort, SortedList<IndexedListing>> = emptyOrders();
  #pending: IndexedListing[] = [];
  /** Listings by lower-case market_hash_name. */
  readonly byName = new Map<string, Set<IndexedListing>>();
  /** Resolved `search` texts, least recently used first. */
  readonly #searches = new Map<string, ResolvedSearch>();

  /** Number of live listings. */
  get size(): number {
    return this.#orders.id.size + this.#pending.length;
  }

  /** The ordering of a sort, with every addition applied. */
  order(sort: ListingSort): SortedList<IndexedListing> {
    this.flush();
    return this.#orders[sort];
  }

  add(listing: IndexedListing): void {
    this.#pending.push(listing);
    this.#addName(listing);
  }

  remove(listing: IndexedListing): void {
    this.flush();
    for (const sort of LISTING_SORTS) this.#orders[sort].delete(listing);
    const group = this.byName.get(listing.nameLower);
    if (group === undefined) return;
    group.delete(listing);
    if (group.size === 0) this.byName.delete(listing.nameLower);
  }

  /** Applies pending additions: one by one when few, by rebuilding the orderings when many. */
  flush(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    if (pending.length * 2 < this.#orders.id.size) {
      for (const listing of pending) for (const sort of LISTING_SORTS) this.#orders[sort].insert(listing);
      return;
    }
    const byId = [...this.#orders.id, ...pending].sort(LISTING_ORDERS.id);
    const byPrice = orderByNumber(byId, (l) => l.priceCents);
    // newest is listed_at then id, both descending, rows without listed_at last: the reverse of
    // the ascending order with those rows first.
    const newest = orderByNumber(byId, (l) => l.listedAtMs ?? Number.NEGATIVE_INFINITY).reverse();
    this.#orders = {
      id: SortedList.fromSorted(byId, LISTING_ORDERS.id),
      newest: SortedList.fromSorted(newest, LISTING_ORDERS.newest),
      price_asc: SortedList.fromSorted(byPrice, LISTING_ORDERS.price_asc),
      price_desc: SortedList.fromSorted(byPrice.reverse(), LISTING_ORDERS.price_desc),
    };
  }

  /**
   * The lower-case names that hold every token. Resolved once per distinct token list over the
   * distinct names, then kept up to date as names appear. May also hold names no longer live.
   */
  namesMatching(tokens: readonly string[]): ReadonlySet<string> {
    const key = tokens.join(' ');
    const cached = this.#searches.get(key);
    if (cached !== undefined) {
      this.#searches.delete(key);
      this.#searches.set(key, cached);
      return cached.names;
    }
    const names = new Set<string>();
    for (const name of this.byName.keys()) if (nameHasTokens(name, tokens)) names.add(name);
    this.#searches.set(key, { tokens, names });
    if (this.#searches.size > SEARCH_CACHE_SIZE) {
      const oldest = this.#searches.keys().next();
      if (oldest.done !== true) this.#searches.delete(oldest.value);
    }
    return names;
  }

  #addName(listing: IndexedListing): void {
    const name = listing.nameLower;
    const group = this.byName.get(name);
    if (group !== undefined) {
      group.add(listing);
      return;
    }
    this.byName.set(name, new Set([listing]));
    for (const search of this.#searches.values()) {
      if (nameHasTokens(name, search.tokens)) search.names.add(name);
    }
  }
}

function emptyOrders(): Record<ListingSort, SortedList<IndexedListing>> {
  const orders = {} as Record<ListingSort, SortedList<IndexedListing>>;
  for (const sort of LISTING_SORTS) orders[sort] = new SortedList<IndexedListing>(LISTING_ORDERS[sort]);
  return orders;
}
