/** Renders a `/listings` page straight from the prepared JSON of its rows. */
import type { ListingPageResult } from './listing-query.js';

const HEAD = Buffer.from('{"items":[');
const COMMA = 0x2c;

/** Where a page's bytes are written: a fresh buffer by default, or one lent by a {@link PageBufferPool}. */
export type PageAllocator = (length: number) => Buffer;

const allocate: PageAllocator = (length) => Buffer.allocUnsafe(length);

/**
 * The exact response body `{"items":[...],"next_cursor":...}`: each row's prepared JSON copied
 * once, in one go, into a buffer of the exact length.
 */
export function renderListingPage(page: ListingPageResult, alloc: PageAllocator = allocate): Buffer {
  const tail = Buffer.from(`],"next_cursor":${JSON.stringify(page.nextCursor)}}`);
  let length = HEAD.length + tail.length + Math.max(0, page.items.length - 1);
  for (const item of page.items) length += item.jsonLength;
  const body = alloc(length);
  let offset = HEAD.copy(body, 0);
  page.items.forEach((item, i) => {
    if (i > 0) body[offset++] = COMMA;
    offset = item.copyJsonTo(body, offset);
  });
  tail.copy(body, offset);
  return body;
}

/** Options of {@link PageBufferPool}. */
export interface PageBufferPoolOptions {
  /** Size of each pooled buffer; a longer page gets a buffer of its own. @default 262144 */
  bufferSize?: number;
  /** Most buffers kept for reuse. @default 64 */
  keep?: number;
}

/**
 * Buffers for page bodies, reused once a response has been handed to the socket. A fresh 100 kB
 * body per request is memory outside the heap that V8 collects garbage to account for; a page
 * written into a lent buffer costs none.
 *
 * @example
 * const body = renderListingPage(page, (n) => pool.take(n));
 * reply.raw.once('finish', () => pool.give(body));
 */
export class PageBufferPool {
  readonly #bufferSize: number;
  readonly #keep: number;
  readonly #free: Buffer[] = [];

  constructor(options: PageBufferPoolOptions = {}) {
    this.#bufferSize = options.bufferSize ?? 1 << 18;
    this.#keep = options.keep ?? 64;
  }

  /** A buffer of exactly `length` bytes (its content is garbage); give it back when no longer used. */
  take(length: number): Buffer {
    if (length > this.#bufferSize) return Buffer.allocUnsafe(length);
    const whole = this.#free.pop() ?? Buffer.allocUnsafeSlow(this.#bufferSize);
    return whole.subarray(0, length);
  }

  /** Takes back a buffer from {@link take} that nothing reads any more (others are left to the GC). */
  give(buffer: Buffer): void {
    if (buffer.buffer.byteLength !== this.#bufferSize || this.#free.length >= this.#keep) return;
    this.#free.push(Buffer.from(buffer.buffer, 0, this.#bufferSize));
  }

  /** Buffers waiting to be reused. */
  get idle(): number {
    return this.#free.length;
  }
}
