/** An ordered collection kept as a list of small sorted chunks: O(log n) search, O(sqrt n)-ish change. */

/** Orders two values: negative when `a` comes first, positive when `b` does, 0 when equal. */
export type Comparator<T> = (a: T, b: T) => number;

/** Options of {@link SortedList}. */
export interface SortedListOptions<T> {
  /**
   * Most entries a chunk holds before it is split in two.
   * @default 512
   */
  chunkSize?: number;
  /**
   * A small non-negative integer (below 2^30) summarising each value, kept beside it so that a
   * {@link SortedList.scanChunks} walk can skip values by tag without reading them.
   * @default () => 0
   */
  tagOf?: (value: T) => number;
}

/**
 * Receives one chunk of a {@link SortedList.scanChunks} walk: its values and their tags (read
 * only), and the position to start at. Returns false to stop the walk.
 */
export type ChunkVisitor<T> = (values: readonly T[], tags: readonly number[], from: number) => boolean;

/**
 * A sorted multiset ordered by a comparator. Values that compare equal keep insertion order.
 * Do not change the list while iterating it: iterators throw when they notice a change.
 * @example
 * const list = new SortedList<number>((a, b) => a - b);
 * list.insert(3); list.insert(1);
 * [...list.valuesAfter(1)]; // [3]
 */
export class SortedList<T> {
  readonly #compare: Comparator<T>;
  readonly #chunkSize: number;
  readonly #tagOf: (value: T) => number;
  #chunks: T[][] = [];
  /** The tag of each value, chunk by chunk, beside `#chunks`. */
  #tags: number[][] = [];
  /** The last value of each chunk, for the binary search over chunks. */
  #maxes: T[] = [];
  #size = 0;
  #version = 0;

  constructor(compare: Comparator<T>, options: SortedListOptions<T> = {}) {
    this.#compare = compare;
    this.#chunkSize = Math.max(4, options.chunkSize ?? 512);
    this.#tagOf = options.tagOf ?? (() => 0);
  }

  /** Builds a list from values in any order. */
  static from<T>(
    values: Iterable<T>,
    compare: Comparator<T>,
    options: SortedListOptions<T> = {},
  ): SortedList<T> {
    return SortedList.fromSorted([...values].sort(compare), compare, options);
  }

  /** Builds a list from values already in `compare` order, in O(n). */
  static fromSorted<T>(
    sorted: readonly T[],
    compare: Comparator<T>,
    options: SortedListOptions<T> = {},
  ): SortedList<T> {
    const list = new SortedList(compare, options);
    const half = list.#chunkSize >> 1;
    for (let i = 0; i < sorted.length; i += half) {
      const chunk = sorted.slice(i, i + half);
      list.#chunks.push(chunk);
      list.#tags.push(chunk.map((value) => list.#tagOf(value)));
      list.#maxes.push(chunk[chunk.length - 1] as T);
    }
    list.#size = sorted.length;
    return list;
  }

  /** Number of values held. */
  get size(): number {
    return this.#size;
  }

  /** Adds a value after any values that compare equal to it. */
  insert(value: T): void {
    this.#version++;
    this.#size++;
    const chunks = this.#chunks;
    const maxes = this.#maxes;
    const tag = this.#tagOf(value);
    const last = chunks.length - 1;
    if (last < 0) {
      chunks.push([value]);
      this.#tags.push([tag]);
      maxes.push(value);
      return;
    }
    // Appending at the end is common (ids grow), and costs one comparison.
    if (this.#compare(maxes[last] as T, value) <= 0) {
      const chunk = chunks[last] as T[];
      chunk.push(value);
      (this.#tags[last] as number[]).push(tag);
      maxes[last] = value;
      if (chunk.length > this.#chunkSize) this.#split(last);
      return;
    }
    const ci = upperBound(maxes, value, this.#compare);
    const chunk = chunks[ci] as T[];
    const pos = upperBound(chunk, value, this.#compare);
    chunk.splice(pos, 0, value);
    (this.#tags[ci] as number[]).splice(pos, 0, tag);
    if (chunk.length > this.#chunkSize) this.#split(ci);
  }

  /** Removes one value that compares equal to `value`, preferring the same object. False when none does. */
  delete(value: T): boolean {
    const compare = this.#compare;
    const chunks = this.#chunks;
    const ci = lowerBound(this.#maxes, value, compare);
    const first = chunks[ci];
    if (first === undefined) return false;
    const pos = lowerBound(first, value, compare);
    if (compare(first[pos] as T, value) !== 0) return false;
    // Walk the run of equal values for the very same object; fall back to the first of the run.
    let c = ci;
    let p = pos;
    for (let chunk = first; ; ) {
      const v = chunk[p] as T;
      if (v === value) {
        this.#removeAt(c, p);
        return true;
      }
      if (++p === chunk.length) {
        const next = chunks[++c];
        if (next === undefined) break;
        chunk = next;
        p = 0;
      }
      if (compare(chunk[p] as T, value) !== 0) break;
    }
    this.#removeAt(ci, pos);
    return true;
  }

  /** True when a value compares equal to `value`. */
  has(value: T): boolean {
    const chunk = this.#chunks[lowerBound(this.#maxes, value, this.#compare)];
    return (
      chunk !== undefined && this.#compare(chunk[lowerBound(chunk, value, this.#compare)] as T, value) === 0
    );
  }

  /** The value at a position, or undefined. O(number of chunks). */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#size) return undefined;
    let rest = index;
    for (const chunk of this.#chunks) {
      if (rest < chunk.length) return chunk[rest];
      rest -= chunk.length;
    }
    return undefined;
  }

  /** Every value in order. */
  [Symbol.iterator](): IterableIterator<T> {
    return this.valuesFrom(() => true);
  }

  /** Values in order, starting at the first value greater than `key`. */
  valuesAfter(key: T): IterableIterator<T> {
    return this.valuesFrom((v) => this.#compare(v, key) > 0);
  }

  /**
   * Values in order, starting at the first value for which `startsAt` holds. `startsAt` must be
   * monotone over the order: false for a prefix of the values, true for the rest.
   */
  *valuesFrom(startsAt: (value: T) => boolean): IterableIterator<T> {
    const version = this.#version;
    let [ci, pos] = this.#seek(startsAt);
    const chunks = this.#chunks;
    for (; ci < chunks.length; ci++, pos = 0) {
      const chunk = chunks[ci] as T[];
      for (; pos < chunk.length; pos++) {
        yield chunk[pos] as T;
        if (this.#version !== version) throw new Error('SortedList changed during iteration');
      }
    }
  }

  /**
   * Calls `visit` with each value in order from the first for which `startsAt` holds (as in
   * {@link valuesFrom}) until `visit` returns false.
   */
  scanFrom(startsAt: (value: T) => boolean, visit: (value: T) => boolean): void {
    this.scanChunks(startsAt, (values, _tags, from) => {
      for (let i = from; i < values.length; i++) if (!visit(values[i] as T)) return false;
      return true;
    });
  }

  /**
   * Calls `visit` chunk by chunk from the first value for which `startsAt` holds, until it
   * returns false: the way for a hot loop to read values and their tags straight from the arrays.
   */
  scanChunks(startsAt: (value: T) => boolean, visit: ChunkVisitor<T>): void {
    let [ci, pos] = this.#seek(startsAt);
    const chunks = this.#chunks;
    const tags = this.#tags;
    for (; ci < chunks.length; ci++, pos = 0) {
      if (!visit(chunks[ci] as T[], tags[ci] as number[], pos)) return;
    }
  }

  /** Chunk index and position of the first value for which `startsAt` holds (past the end if none). */
  #seek(startsAt: (value: T) => boolean): [number, number] {
    const ci = firstIndex(this.#maxes, startsAt);
    const chunk = this.#chunks[ci];
    return chunk === undefined ? [ci, 0] : [ci, firstIndex(chunk, startsAt)];
  }

  #split(ci: number): void {
    const chunk = this.#chunks[ci] as T[];
    const half = chunk.length >> 1;
    const tail = chunk.splice(half);
    this.#chunks.splice(ci + 1, 0, tail);
    this.#tags.splice(ci + 1, 0, (this.#tags[ci] as number[]).splice(half));
    this.#maxes.splice(ci + 1, 0, tail[tail.length - 1] as T);
    this.#maxes[ci] = chunk[chunk.length - 1] as T;
  }

  #removeAt(ci: number, pos: number): void {
    this.#version++;
    this.#size--;
    const chunks = this.#chunks;
    const chunk = chunks[ci] as T[];
    chunk.splice(pos, 1);
    (this.#tags[ci] as number[]).splice(pos, 1);
    if (chunk.length === 0) {
      chunks.splice(ci, 1);
      this.#tags.splice(ci, 1);
      this.#maxes.splice(ci, 1);
      return;
    }
    this.#maxes[ci] = chunk[chunk.length - 1] as T;
    // Fold a small chunk into its neighbour so the chunk count stays near size / chunkSize.
    if (chunk.length < this.#chunkSize >> 3 && chunks.length > 1) {
      const left = ci > 0 ? ci - 1 : ci;
      const merged = (chunks[left] as T[]).concat(chunks[left + 1] as T[]);
      const tags = this.#tags;
      chunks.splice(left, 2, merged);
      tags.splice(left, 2, (tags[left] as number[]).concat(tags[left + 1] as number[]));
      this.#maxes.splice(left, 2, merged[merged.length - 1] as T);
      if (merged.length > this.#chunkSize) this.#split(left);
    }
  }
}

/** Index of the first element for which a monotone predicate holds, or `items.length`. */
function firstIndex<T>(items: readonly T[], holds: (value: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (holds(items[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Index of the first element not less than `value`. */
function lowerBound<T>(items: readonly T[], value: T, compare: Comparator<T>): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(items[mid] as T, value) >= 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Index of the first element greater than `value`. */
function upperBound<T>(items: readonly T[], value: T, compare: Comparator<T>): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(items[mid] as T, value) > 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
