/**
 * Rendered `/listings` pages kept while the index is unchanged: a query asked again costs a
 * look-up and one copy of the prepared page to the socket, not a walk and 200 scattered copies.
 */
import type { ListingIndex, ListingSearch } from './listing-index.js';
import { PageBufferPool, renderListingPage } from './render-listing-page.js';

/** Every field of a search, in the order the cache key lists them. */
const KEY_FIELDS = [
  'appId',
  'sort',
  'limit',
  'cursor',
  'name',
  'search',
  'category',
  'rarity',
  'wear',
  'minPriceCents',
  'maxPriceCents',
  'minFloat',
  'maxFloat',
  'delivery',
  'minRefundPercent',
  'statTrak',
  'souvenir',
  'availableAfterMs',
] as const satisfies readonly (keyof ListingSearch)[];

// A field added to ListingSearch but not to the key would serve one query's page to another.
type Unkeyed = Exclude<keyof ListingSearch, (typeof KEY_FIELDS)[number]>;
const EVERY_FIELD_KEYED: [Unkeyed] extends [never] ? true : Unkeyed = true;
void EVERY_FIELD_KEYED;

/** Options of {@link ListingPageCache}. */
export interface ListingPageCacheOptions {
  /** Bytes of rendered pages kept, least recently used dropped first. @default 16777216 */
  maxBytes?: number;
  /**
   * Queries remembered as asked once: a page is kept from its second request on, so a client
   * walking the cursors once does not push out the pages others keep asking for. @default 4096
   */
  maxSeen?: number;
  /** Buffers for the pages that are not kept. @default a new pool */
  pool?: PageBufferPool;
}

/** A page body to send. A `pooled` body goes back with {@link ListingPageCache.sent} once sent. */
export interface PageBody {
  body: Buffer;
  pooled: boolean;
}

interface Kept {
  /** {@link ListingIndex.changes} when the page was rendered. */
  changes: number;
  body: Buffer;
}

/**
 * The exact bodies of recent `/listings` pages. A kept page is served only while the index has
 * seen no change since it was rendered, so it is byte for byte what rendering now would give.
 * @example
 * const { body, pooled } = cache.page(search);
 * reply.raw.once('finish', () => pooled && cache.sent(body));
 */
export class ListingPageCache {
  readonly #index: ListingIndex;
  readonly #maxBytes: number;
  readonly #maxSeen: number;
  readonly #pool: PageBufferPool;
  readonly #kept = new Map<string, Kept>();
  readonly #seen = new Set<string>();
  #bytes = 0;

  constructor(index: ListingIndex, options: ListingPageCacheOptions = {}) {
    this.#index = index;
    this.#maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.#maxSeen = options.maxSeen ?? 4096;
    this.#pool = options.pool ?? new PageBufferPool();
  }

  /**
   * The body of the page `search` asks for.
   * @throws ApiError invalid_param for a cursor that is malformed or made for another sort or game.
   */
  page(search: ListingSearch): PageBody {
    const key = keyOf(search);
    const changes = this.#index.changes;
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      this.#kept.delete(key);
      if (kept.changes === changes) {
        this.#kept.set(key, kept);
        return { body: kept.body, pooled: false };
      }
      this.#bytes -= kept.body.length;
    } else if (!this.#seen.delete(key)) {
      this.#remember(key);
      return { body: renderListingPage(this.#index.query(search), (n) => this.#pool.take(n)), pooled: true };
    }
    const body = renderListingPage(this.#index.query(search), (n) => Buffer.allocUnsafeSlow(n));
    this.#keep(key, { changes, body });
    return { body, pooled: false };
  }

  /** Takes back a pooled body once the socket no longer reads it. */
  sent(body: Buffer): void {
    this.#pool.give(body);
  }

  /** Pages kept and their bytes. */
  get stats(): { pages: number; bytes: number } {
    return { pages: this.#kept.size, bytes: this.#bytes };
  }

  #remember(key: string): void {
    this.#seen.add(key);
    if (this.#seen.size <= this.#maxSeen) return;
    const oldest = this.#seen.values().next();
    if (oldest.done !== true) this.#seen.delete(oldest.value);
  }

  #keep(key: string, kept: Kept): void {
    this.#kept.set(key, kept);
    this.#bytes += kept.body.length;
    for (const [oldKey, old] of this.#kept) {
      if (this.#bytes <= this.#maxBytes) return;
      this.#kept.delete(oldKey);
      this.#bytes -= old.body.length;
    }
  }
}

/** One string per distinct search (undefined fields become null). */
function keyOf(search: ListingSearch): string {
  return JSON.stringify(KEY_FIELDS.map((field) => search[field] ?? null));
}
