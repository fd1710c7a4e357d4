/** The orderings of `/listings` as comparators over the sort key of a listing. */
import type { ListingSort } from '../../../contract/listing.js';
import type { Comparator } from './sorted-list.js';

/** The fields the orderings read; a cursor carries the ones of its sort. */
export interface SortKey {
  readonly id: string;
  readonly priceCents: number;
  readonly listedAtMs: number | null;
}

/** Orders ids by UTF-16 code units, the order of JavaScript's `<`. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** listed_at descending, listings without one last, then id descending. */
function compareNewest(a: SortKey, b: SortKey): number {
  const x = a.listedAtMs;
  const y = b.listedAtMs;
  if (x !== y) {
    if (x === null) return 1;
    if (y === null) return -1;
    return y - x;
  }
  return compareIds(b.id, a.id);
}

/** One comparator per sort; each is a total order because the id breaks ties. */
export const LISTING_ORDERS: Readonly<Record<ListingSort, Comparator<SortKey>>> = {
  id: (a, b) => compareIds(a.id, b.id),
  newest: compareNewest,
  price_asc: (a, b) => a.priceCents - b.priceCents || compareIds(a.id, b.id),
  price_desc: (a, b) => b.priceCents - a.priceCents || compareIds(b.id, a.id),
};
