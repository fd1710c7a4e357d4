/**
 * A listing's tag: its group code and its filterable per-listing facts packed into one small
 * integer, kept beside it in every ordering so that a scan rejects most rows of a selective filter
 * without reading them.
 */
import { DELIVERIES, type Delivery } from '../../../contract/listing.js';
import type { ListingFilter } from './listing-filter.js';
import { GROUP_BITS, GROUP_OVERFLOW } from './listing-groups.js';
import type { SortedList } from './sorted-list.js';

// Layout: group code (20 bits), delivery (2 bits), three presence flags, float bucket (4 bits).
const GROUP_MASK = 2 ** GROUP_BITS - 1;
const DELIVERY_SHIFT = GROUP_BITS;
const HAS_FLOAT = 1 << 22;
const HAS_REFUND = 1 << 23;
const HAS_LISTED_AT = 1 << 24;
const FLOAT_SHIFT = 25;

/**
 * Lower bounds of the float buckets after the first: finer where wears start and where float
 * snipers look (low floats), 16 buckets in all.
 */
const FLOAT_BOUNDS = [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.18, 0.21, 0.25, 0.3, 0.38, 0.45, 0.6, 0.8];

/** Packs the tag of a listing. */
export function packTag(
  groupCode: number,
  delivery: Delivery,
  float: number | null,
  refundPercent: number | null,
  listedAtMs: number | null,
): number {
  // Integer operators keep the tag a small integer (not a heap number), so arrays of tags stay compact.
  return (
    groupCode |
    (DELIVERIES.indexOf(delivery) << DELIVERY_SHIFT) |
    (float === null ? 0 : HAS_FLOAT | (floatBucket(float) << FLOAT_SHIFT)) |
    (refundPercent === null ? 0 : HAS_REFUND) |
    (listedAtMs === null ? 0 : HAS_LISTED_AT)
  );
}

/** The delivery a tag holds. */
export function deliveryOfTag(tag: number): Delivery {
  return DELIVERIES[(tag >>> DELIVERY_SHIFT) & 3] as Delivery;
}

/**
 * A test on tags that every listing passing a filter passes: its delivery, the presence of the
 * fields a bound needs, its float bucket, and its group (when `groups` is a bitset of codes).
 */
export interface TagTest {
  mask: number;
  want: number;
  /** Allowed float buckets, a 16-bit set. */
  buckets: number;
  groups: Uint32Array | undefined;
}

/** The tag test of `filter`, given the bitset of the groups its name-level fields allow. */
export function tagTestOf(filter: ListingFilter, groups: Uint32Array | undefined): TagTest {
  let mask = 0;
  let want = 0;
  if (filter.delivery !== undefined) {
    mask |= 3 << DELIVERY_SHIFT;
    want |= DELIVERIES.indexOf(filter.delivery) << DELIVERY_SHIFT;
  }
  const byFloat = filter.minFloat !== undefined || filter.maxFloat !== undefined;
  if (byFloat) mask |= HAS_FLOAT;
  if (filter.minRefundPercent !== undefined) mask |= HAS_REFUND;
  if (filter.availableAfterMs !== undefined) mask |= HAS_LISTED_AT;
  want |= mask & (HAS_FLOAT | HAS_REFUND | HAS_LISTED_AT);
  // Buckets from the one holding minFloat to the one holding maxFloat.
  const low = floatBucket(filter.minFloat ?? Number.NEGATIVE_INFINITY);
  const high = floatBucket(filter.maxFloat ?? Number.POSITIVE_INFINITY);
  let buckets = 0xffff;
  if (byFloat) buckets = high >= low ? ((1 << (high + 1)) - 1) & ~((1 << low) - 1) : 0;
  return { mask, want, buckets, groups };
}

/**
 * Walks `list` from the first value for which `startsAt` holds and calls `visit` with each value
 * whose tag passes `test`, until `visit` returns false or `stopsAt` (monotone) holds. Tags are
 * read from the list's arrays: a row that fails costs a few nanoseconds and no memory access.
 */
export function scanTagged<T>(
  list: SortedList<T>,
  startsAt: (value: T) => boolean,
  test: TagTest,
  stopsAt: ((value: T) => boolean) | undefined,
  visit: (value: T) => boolean,
): void {
  const { mask, want, buckets, groups } = test;
  list.scanChunks(startsAt, (values, tags, from) => {
    // Checking each chunk's first value ends the walk near a bound even when no tag passes.
    if (stopsAt?.(values[from] as T)) return false;
    for (let i = from; i < values.length; i++) {
      const tag = tags[i] as number;
      if ((tag & mask) !== want || ((buckets >>> (tag >>> FLOAT_SHIFT)) & 1) === 0) continue;
      if (groups !== undefined) {
        const code = tag & GROUP_MASK;
        if (code !== GROUP_OVERFLOW && (((groups[code >>> 5] as number) >>> (code & 31)) & 1) === 0) continue;
      }
      const value = values[i] as T;
      if (stopsAt?.(value) || !visit(value)) return false;
    }
    return true;
  });
}

function floatBucket(float: number): number {
  let bucket = 0;
  while (bucket < FLOAT_BOUNDS.length && float >= (FLOAT_BOUNDS[bucket] as number)) bucket++;
  return bucket;
}
