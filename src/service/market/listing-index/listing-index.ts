/** The in-memory index of live listings that serves `GET /listings`: orderings per game and sort, JSON prepared once. */
import type { Listing } from '../../../contract/listing.js';
import { GameListings } from './game-listings.js';
import {
  createIndexedListing,
  type IndexedListing,
  type ListingRecord,
  type RecordTables,
  releaseIndexedListing,
} from './indexed-listing.js';
import { JsonArena, type JsonArenaOptions } from './json-arena.js';
import { GroupTable } from './listing-groups.js';
import { type ListingPageResult, type ListingSearch, queryListings } from './listing-query.js';

export type { IndexedListing } from './indexed-listing.js';
export {
  compileFilter,
  type ListingFilter,
  type ListingPredicate,
  matchesFilters,
  type OnlyOrExclude,
} from './listing-filter.js';
export type { ListingPageResult, ListingSearch } from './listing-query.js';
export { PageBufferPool, renderListingPage } from './render-listing-page.js';

/** Options of {@link ListingIndex}. */
export interface ListingIndexOptions {
  /** How the listings' own JSON bytes are packed in memory. */
  arena?: JsonArenaOptions;
}

/** Memory taken by the listings' JSON. */
export interface ListingJsonStats {
  /** Bytes of the arena slabs holding each listing's JSON. */
  slabBytes: number;
  /** JSON bytes of live listings. */
  liveBytes: number;
}

/**
 * The live catalogue of every game, held in memory. Ids are unique across games: upserting an id
 * under another game moves the listing there. Upserts are batched until the next read of an
 * ordering, so loading many listings in a row costs one sort, not a million inserts.
 * @example
 * const index = new ListingIndex();
 * index.upsert(730, listing);
 * const body = renderListingPage(index.query({ appId: 730, sort: 'price_asc', limit: 50 }));
 */
export class ListingIndex {
  readonly #byId = new Map<string, ListingRecord>();
  readonly #games = new Map<number, GameListings>();
  readonly #tables: RecordTables;
  #changes = 0;

  constructor(options: ListingIndexOptions = {}) {
    const pool = new Map<string, string>();
    this.#tables = {
      groups: new GroupTable(pool),
      arena: new JsonArena(options.arena),
      pool,
    };
  }

  /** Adds or replaces a listing (replacing = remove then add, so it takes a new place). */
  upsert(appId: number, listing: Listing): IndexedListing {
    this.remove(listing.id);
    this.#changes++;
    const record = createIndexedListing(appId, listing, this.#tables);
    this.#byId.set(record.id, record);
    let game = this.#games.get(appId);
    if (game === undefined) {
      game = new GameListings();
      this.#games.set(appId, game);
    }
    game.add(record);
    return record;
  }

  /** Removes a listing; returns it (its JSON stays readable) or undefined when it was not live. */
  remove(id: string): IndexedListing | undefined {
    const record = this.#byId.get(id);
    if (record === undefined) return undefined;
    this.#changes++;
    this.#byId.delete(id);
    this.#games.get(record.appId)?.remove(record);
    releaseIndexedListing(record, this.#tables);
    return record;
  }

  /** How many upserts and removals the index has applied: every query's answer is the same while this is. */
  get changes(): number {
    return this.#changes;
  }

  /** The live listing with this id, of any game. */
  get(id: string): IndexedListing | undefined {
    return this.#byId.get(id);
  }

  /** Number of live listings of one game, or of all games. */
  size(appId?: number): number {
    if (appId === undefined) return this.#byId.size;
    return this.#games.get(appId)?.size ?? 0;
  }

  /**
   * The listing at a position from 0 to `size() - 1`, counting through each game's id order in
   * turn: with a uniform position, a uniform pick over all games. O(size / 256).
   */
  at(position: number): IndexedListing | undefined {
    let rest = Math.floor(position);
    for (const game of this.#games.values()) {
      if (rest < game.size) return game.order('id').at(rest);
      rest -= game.size;
    }
    return undefined;
  }

  /** Every live listing of a game in id order. Do not change the index while iterating (it throws). */
  values(appId: number): Iterable<IndexedListing> {
    return this.#games.get(appId)?.order('id') ?? [];
  }

  /**
   * One page of a game's listings.
   * @throws ApiError invalid_param for a cursor that is malformed or made for another sort or game.
   */
  query(search: ListingSearch): ListingPageResult {
    return queryListings(this.#games.get(search.appId), this.#tables.groups, search);
  }

  /**
   * Applies pending additions to the orderings now. Call it after a bulk load, or the first read
   * pays for building the orderings.
   */
  flush(): void {
    for (const game of this.#games.values()) game.flush();
  }

  /** Memory taken by the listings' JSON. */
  jsonStats(): ListingJsonStats {
    const arena = this.#tables.arena.stats();
    return { slabBytes: arena.bytes, liveBytes: arena.liveBytes };
  }
}
