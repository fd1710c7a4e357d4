/**
 * Listing groups: what listings with the same name, category, rarity and wear share, stored once
 * and numbered, so that name-level filters (name, search, category, rarity, wear, stat_trak,
 * souvenir) are decided once per group into a bitset that scans test by the group code in a tag.
 */
import type { Wear } from '../../../contract/listing.js';
import type { ListingFilter } from './listing-filter.js';
import { nameHasTokens, searchTokens } from './search-tokens.js';

/** Group codes take this many bits of a tag. */
export const GROUP_BITS = 20;
/**
 * The code of every group past the table's room. Once there are that many groups, bitsets are
 * no longer made and the full predicate decides alone.
 */
export const GROUP_OVERFLOW = 2 ** GROUP_BITS - 1;

/** How many distinct name-level filters keep their bitsets. */
const CACHE_SIZE = 256;

/** The name-level fields of listings, shared by all listings that have the same ones. */
export interface ListingGroup {
  readonly code: number;
  readonly name: string;
  readonly nameLower: string;
  readonly category: string;
  readonly categoryLower: string;
  readonly rarity: string;
  readonly rarityLower: string;
  readonly wear: Wear | null;
  /** name contains `StatTrak™`. */
  readonly statTrak: boolean;
  /** name starts with `Souvenir `. */
  readonly souvenir: boolean;
}

/** The groups a filter allows, as a bitset over group codes. */
export interface AllowedGroups {
  bits: Uint32Array;
  /** How many known groups are allowed; 0 means no listing can match. */
  count: number;
}

interface CachedFilter {
  test: (group: ListingGroup) => boolean;
  allowed: AllowedGroups;
}

/** Every group seen so far (never forgotten: the catalogue's items are a bounded set). */
export class GroupTable {
  readonly #pool: Map<string, string>;
  /** Groups by name; a name rarely has more than one. */
  readonly #byName = new Map<string, ListingGroup[]>();
  readonly #groups: ListingGroup[] = [];
  /** Bitsets of recent filters, least recently used first. */
  readonly #filters = new Map<string, CachedFilter>();

  /** `pool` shares one copy of each distinct string with the caller. */
  constructor(pool: Map<string, string> = new Map()) {
    this.#pool = pool;
  }

  /** The group of these fields, created (and numbered) on first sight. */
  groupOf(name: string, category: string, rarity: string, wear: Wear | null): ListingGroup {
    const named = this.#byName.get(name);
    const known = named?.find((g) => g.category === category && g.rarity === rarity && g.wear === wear);
    if (known !== undefined) return known;
    const intern = (value: string) => internString(this.#pool, value);
    const group: ListingGroup = {
      code: Math.min(this.#groups.length, GROUP_OVERFLOW),
      name: intern(name),
      nameLower: intern(name.toLowerCase()),
      category: intern(category),
      categoryLower: intern(category.toLowerCase()),
      rarity: intern(rarity),
      rarityLower: intern(rarity.toLowerCase()),
      wear,
      statTrak: name.includes('StatTrak™'),
      souvenir: name.startsWith('Souvenir '),
    };
    if (named === undefined) this.#byName.set(group.name, [group]);
    else named.push(group);
    if (group.code === GROUP_OVERFLOW) {
      this.#filters.clear();
      return group;
    }
    this.#groups.push(group);
    for (const { test, allowed } of this.#filters.values()) {
      makeRoom(allowed, group.code);
      if (test(group)) allow(allowed, group.code);
    }
    return group;
  }

  /**
   * The groups the name-level fields of `filter` allow, or undefined when it has none (or the
   * table has overflowed).
   */
  allowed(filter: ListingFilter): AllowedGroups | undefined {
    const key = filterKey(filter);
    if (key === null || this.#groups.length >= GROUP_OVERFLOW) return undefined;
    const cached = this.#filters.get(key);
    if (cached !== undefined) {
      this.#filters.delete(key);
      this.#filters.set(key, cached);
      return cached.allowed;
    }
    const test = compileGroupTest(filter);
    const allowed: AllowedGroups = { bits: new Uint32Array(wordsFor(this.#groups.length)), count: 0 };
    for (const group of this.#groups) if (test(group)) allow(allowed, group.code);
    this.#filters.set(key, { test, allowed });
    if (this.#filters.size > CACHE_SIZE) {
      const oldest = this.#filters.keys().next();
      if (oldest.done !== true) this.#filters.delete(oldest.value);
    }
    return allowed;
  }
}

/** A cache key of the name-level fields of a filter, or null when it has none. */
function filterKey(f: ListingFilter): string | null {
  const name = f.name?.toLowerCase() ?? null;
  const tokens = name === null && f.search !== undefined ? searchTokens(f.search) : [];
  const parts = [
    name,
    tokens.length > 0 ? tokens.join(' ') : null,
    f.category?.toLowerCase() ?? null,
    f.rarity?.toLowerCase() ?? null,
    f.wear ?? null,
    f.statTrak ?? null,
    f.souvenir ?? null,
  ];
  return parts.every((p) => p === null) ? null : JSON.stringify(parts);
}

function compileGroupTest(f: ListingFilter): (group: ListingGroup) => boolean {
  const name = f.name?.toLowerCase();
  const tokens = name === undefined && f.search !== undefined ? searchTokens(f.search) : [];
  const category = f.category?.toLowerCase();
  const rarity = f.rarity?.toLowerCase();
  return (g) =>
    (name === undefined || g.nameLower === name) &&
    (tokens.length === 0 || nameHasTokens(g.nameLower, tokens)) &&
    (category === undefined || g.categoryLower === category) &&
    (rarity === undefined || g.rarityLower === rarity) &&
    (f.wear === undefined || g.wear === f.wear) &&
    (f.statTrak === undefined || g.statTrak === (f.statTrak === 'only')) &&
    (f.souvenir === undefined || g.souvenir === (f.souvenir === 'only'));
}

/** Adds `code` to the bitset, which has room for it. */
function allow(allowed: AllowedGroups, code: number): void {
  const word = code >>> 5;
  allowed.bits[word] = ((allowed.bits[word] as number) | (1 << (code & 31))) >>> 0;
  allowed.count++;
}

/** Grows the bitset so that every code up to `code` can be read, keeping its bits. */
function makeRoom(allowed: AllowedGroups, code: number): void {
  if (code >>> 5 < allowed.bits.length) return;
  const grown = new Uint32Array(wordsFor(Math.max(code, allowed.bits.length * 48)));
  grown.set(allowed.bits);
  allowed.bits = grown;
}

function wordsFor(codes: number): number {
  return Math.ceil((codes + 1) / 32) + 1;
}

function internString(pool: Map<string, string>, value: string): string {
  const shared = pool.get(value);
  if (shared !== undefined) return shared;
  pool.set(value, value);
  return value;
}
