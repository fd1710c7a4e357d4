/** The live listings of one game: one ordering per sort, and the listings grouped by lower-case name. */
import { LISTING_SORTS, type ListingSort } from '../../../contract/listing.js';
import type { ListingRecord } from './indexed-listing.js';
import { LISTING_ORDERS } from './listing-order.js';
import { orderByNumber } from './order-by-number.js';
import { SortedList } from './sorted-list.js';

/**
 * The listings of one game, kept in every ordering of `/listings`. Additions wait in a pending
 * list until the next read of an ordering; when they are many (a bulk load) the orderings are
 * rebuilt at once, which is far faster than a million single inserts.
 */
export class GameListings {
  #orders: Record<ListingSort, SortedList<ListingRecord>> = emptyOrders();
  #pending: ListingRecord[] = [];
  /** Listings by lower-case market_hash_name: the candidates of a `name` query. */
  readonly byName = new Map<string, Set<ListingRecord>>();

  /** Number of live listings. */
  get size(): number {
    return this.#orders.id.size + this.#pending.length;
  }

  /** The ordering of a sort, with every addition applied. */
  order(sort: ListingSort): SortedList<ListingRecord> {
    this.flush();
    return this.#orders[sort];
  }

  add(listing: ListingRecord): void {
    this.#pending.push(listing);
    const group = this.byName.get(listing.nameLower);
    if (group === undefined) this.byName.set(listing.nameLower, new Set([listing]));
    else group.add(listing);
  }

  remove(listing: ListingRecord): void {
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
      id: SortedList.fromSorted(byId, LISTING_ORDERS.id, { tagOf }),
      newest: SortedList.fromSorted(newest, LISTING_ORDERS.newest, { tagOf }),
      price_asc: SortedList.fromSorted(byPrice, LISTING_ORDERS.price_asc, { tagOf }),
      price_desc: SortedList.fromSorted(byPrice.reverse(), LISTING_ORDERS.price_desc, { tagOf }),
    };
  }
}

function emptyOrders(): Record<ListingSort, SortedList<ListingRecord>> {
  const orders = {} as Record<ListingSort, SortedList<ListingRecord>>;
  for (const sort of LISTING_SORTS)
    orders[sort] = new SortedList<ListingRecord>(LISTING_ORDERS[sort], { tagOf });
  return orders;
}

function tagOf(listing: ListingRecord): number {
  return listing.tag;
}
