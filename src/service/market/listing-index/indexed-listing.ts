/** The in-memory record of one live listing: the fields filters and sorts read, and its prepared JSON. */
import { usdToCents } from '../../../contract/common.js';
import type { Delivery, Listing, Wear } from '../../../contract/listing.js';
import { EMPTY_SLAB, type JsonArena, type JsonCell, type JsonSlab } from './json-arena.js';
import type { FilterFields } from './listing-filter.js';
import type { GroupTable, ListingGroup } from './listing-groups.js';
import { orderListingKeys } from './listing-json.js';

export { orderListingKeys } from './listing-json.js';

import { deliveryOfTag, packTag } from './listing-tags.js';

/**
 * A live listing as the index holds it: the fields filters read ({@link FilterFields}) and the
 * rest. Strings are shared between listings that repeat them.
 */
export interface IndexedListing extends FilterFields {
  readonly id: string;
  readonly appId: number;
  /** market_hash_name as listed (read this rather than `listing.market_hash_name`, which parses the JSON). */
  readonly name: string;
  readonly category: string;
  /** doppler_phase. */
  readonly phase: string | null;
  /** Byte length of the JSON. */
  readonly jsonLength: number;
  /**
   * The listing's JSON as UTF-8: `JSON.stringify` of the listing with the keys in the schema's
   * order, prepared once; a copy on each access (pages use {@link copyJsonTo}).
   */
  readonly json: Buffer;
  /** The listing, parsed from the JSON on each access: the index does not keep the object. */
  readonly listing: Listing;
  /** Writes the JSON into `target` at `offset` (one copy of its bytes); returns the offset just after it. */
  copyJsonTo(target: Buffer, offset: number): number;
}

/** Hands out one shared copy of each distinct string. */
export type StringPool = Map<string, string>;

/** What the records of one index share. */
export interface RecordTables {
  groups: GroupTable;
  arena: JsonArena;
  pool: StringPool;
}

/** Builds the record of `listing` for game `appId`, storing its JSON in the arena. */
export function createIndexedListing(appId: number, listing: Listing, tables: RecordTables): ListingRecord {
  const record = new ListingRecord(appId, listing, tables);
  tables.arena.store(record, JSON.stringify(orderListingKeys(listing)));
  return record;
}

/** Gives back what a removed record holds in the tables; its JSON stays readable. */
export function releaseIndexedListing(record: ListingRecord, tables: RecordTables): void {
  tables.arena.free(record);
}

/**
 * The concrete record. Name-level fields live in its shared group and delivery in its tag, read
 * through getters; its JSON is one run of bytes in the arena, so a page copies it in one go.
 */
export class ListingRecord implements IndexedListing, JsonCell {
  readonly id: string;
  readonly appId: number;
  readonly group: ListingGroup;
  readonly phase: string | null;
  readonly priceCents: number;
  readonly float: number | null;
  readonly refundPercent: number | null;
  readonly listedAtMs: number | null;
  /** Group code and filterable facts, packed by {@link packTag}. */
  readonly tag: number;
  jsonSlab: JsonSlab = EMPTY_SLAB;
  jsonStart = 0;
  jsonEnd = 0;
  jsonFreed = false;

  constructor(appId: number, l: Listing, { groups, pool }: RecordTables) {
    this.id = l.id;
    this.appId = appId;
    this.group = groups.groupOf(l.market_hash_name, l.category, l.rarity, l.wear);
    this.phase = l.doppler_phase === null ? null : intern(pool, l.doppler_phase);
    this.priceCents = usdToCents(l.price_usd);
    this.float = l.float_value;
    this.refundPercent = l.refund_percent;
    this.listedAtMs = l.listed_at === null ? null : Date.parse(l.listed_at);
    this.tag = packTag(this.group.code, l.delivery, this.float, this.refundPercent, this.listedAtMs);
  }

  get name(): string {
    return this.group.name;
  }

  get nameLower(): string {
    return this.group.nameLower;
  }

  get category(): string {
    return this.group.category;
  }

  get categoryLower(): string {
    return this.group.categoryLower;
  }

  get rarityLower(): string {
    return this.group.rarityLower;
  }

  get wear(): Wear | null {
    return this.group.wear;
  }

  get statTrak(): boolean {
    return this.group.statTrak;
  }

  get souvenir(): boolean {
    return this.group.souvenir;
  }

  get delivery(): Delivery {
    return deliveryOfTag(this.tag);
  }

  get jsonLength(): number {
    return this.jsonEnd - this.jsonStart;
  }

  copyJsonTo(target: Buffer, offset: number): number {
    // A view and TypedArray#set: Buffer#copy of part of a buffer costs several times more on Node 20.
    target.set(this.jsonSlab.view.subarray(this.jsonStart, this.jsonEnd), offset);
    return offset + this.jsonEnd - this.jsonStart;
  }

  get json(): Buffer {
    const json = Buffer.allocUnsafe(this.jsonLength);
    this.copyJsonTo(json, 0);
    return json;
  }

  get listing(): Listing {
    return JSON.parse(this.json.toString('utf8')) as Listing;
  }
}

function intern(pool: StringPool, value: string): string {
  const shared = pool.get(value);
  if (shared !== undefined) return shared;
  pool.set(value, value);
  return value;
}
