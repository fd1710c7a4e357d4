/** The in-memory index of live listings that serves `GET /listings`: orderings per game and sort, JSON prepared once. */
import type { Listing } from '../../contract/listing.js';
import { GameListings } from './game-listings.js';
import {
  createIndexedListing,
  type IndexedListing,
  type ListingRecord,
  type RecordTables,
} from './indexed-listing.js';
import { JsonArena, type JsonArenaOptions, type JsonArenaStats } from './json-arena.js';
import { GroupTable } from './listing-groups.js';
import { type ListingPageResult, type ListingSearch, queryListings } from './listing-query.js';

export type { IndexedListing } from './indexed-listing.js';
export type { JsonArenaStats } from './json-arena.js';
export {
  compileFilter,
  type ListingFilter,
  type ListingPredicate,
  matchesFilters,
  type OnlyOrExclude,
} from './listing-filter.js';
export type { ListingPageResult, ListingSearch } from './listing-query.js';
export { renderListingPage } from './render-listing-page.js';

/** Options of {@link ListingIndex}. */
export interface ListingIndexOptions {
  /** How the listings' JSON is packed in memory. */
  arena?: JsonArenaOptions;
}

/**
 * The live catalogue of every game, held in memory. Ids are unique across games: upserting an id
 * under another game moves the listing there.
 * @example
 * const index = new ListingIndex();
 * index.upsert(730, listing);
 * const body = renderListingPage(index.query({ appId: 730, sort: 'price_asc', limit: 50 }));
 */
export class ListingIndex {
  readonly #byId = new Map<string, ListingRecord>();
  readonly #games = new Map<number, GameListings>();
  readonly #tables: RecordTables;
  readonly #arena: JsonArena;

  constructor(options: ListingIndexOptions = {}) {
    this.#arena = new JsonArena(options.arena);
    const pool = new Map<string, string>();
    this.#tables = { groups: new GroupTable(pool), pool };
  }

  /** Adds or replaces a listing (replacing = remove then add, so it takes a new place). */
  upsert(appId: number, listing: Listing): IndexedListing {
    this.remove(listing.id);
    const record = createIndexedListing(appId, listing, this.#tables, this.#arena);
    this.#byId.set(record.id, record);
    let game = this.#games.get(appId);
    if (game === undefined) {
      game = new GameListings();
      this.#games.set(appId, game);
    }
    game.add(record);
    return record;
  }

  /** Removes a listing; returns it (its `json` stays readable) or undefined when it was not live. */
  remove(id: string): IndexedListing | undefined {
    const record = this.#byId.get(id);
    if (record === undefined) return undefined;
    this.#byId.delete(id);
    this.#games.get(record.appId)?.remove(record);
    this.#arena.free(record);
    return record;
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
   * Applies pending additions to the orderings now. Upserts are batched until the next read, so
   * call this after a bulk load to keep the first request from paying for the build.
   */
  flush(): void {
    for (const game of this.#games.values()) game.flush();
  }

  /** The listing at a position of the id order of all games together (games in app id order), for sampling. */
  at(position: number): IndexedListing | undefined {
    let rest = position;
    for (const appId of [...this.#games.keys()].sort((a, b) => a - b)) {
      const ids = this.#games.get(appId)?.order('id');
      if (ids === undefined) continue;
      if (rest < ids.size) return ids.at(rest);
      rest -= ids.size;
    }
    return undefined;
  }

  /** Memory taken by the listings' JSON. */
  jsonStats(): JsonArenaStats {
    return this.#arena.stats();
  }
}
