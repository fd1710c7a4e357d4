/** The in-memory record of one live listing: the fields filters and sorts read, and its prepared JSON. */
import { usdToCents } from '../../contract/common.js';
import type { Delivery, Listing, Wear } from '../../contract/listing.js';
import { EMPTY_SLAB, type JsonArena, type JsonCell, type JsonSlab } from './json-arena.js';
import type { GroupTable, ListingGroup } from './listing-groups.js';
import { deliveryOfTag, packTag } from './listing-tags.js';

/** A live listing as the index holds it. Strings are shared between listings that repeat them. */
export interface IndexedListing {
  readonly id: string;
  readonly appId: number;
  /** market_hash_name as listed (read this rather than `listing.market_hash_name`, which parses the JSON). */
  readonly name: string;
  /** market_hash_name in lower case. */
  readonly nameLower: string;
  readonly category: string;
  readonly categoryLower: string;
  readonly rarityLower: string;
  readonly wear: Wear | null;
  /** doppler_phase. */
  readonly phase: string | null;
  readonly priceCents: number;
  /** float_value. */
  readonly float: number | null;
  readonly delivery: Delivery;
  readonly refundPercent: number | null;
  /** market_hash_name contains `StatTrak™`. */
  readonly statTrak: boolean;
  /** market_hash_name starts with `Souvenir `. */
  readonly souvenir: boolean;
  /** listed_at in epoch milliseconds. */
  readonly listedAtMs: number | null;
  /** The listing's JSON as UTF-8, keys in the Listing schema's order; prepared once. */
  readonly json: Buffer;
  /** The listing, parsed from `json` on each access: the index does not keep the object. */
  readonly listing: Listing;
}

/** Hands out one shared copy of each distinct string. */
export type StringPool = Map<string, string>;

/** What the records of one index share: their groups and a pool of other repeated strings. */
export interface RecordTables {
  groups: GroupTable;
  pool: StringPool;
}

/** The listing object with keys (its own and its stickers') in the schema's order, extra keys dropped. */
export function orderListingKeys(l: Listing): Listing {
  return {
    id: l.id,
    market_hash_name: l.market_hash_name,
    wear: l.wear,
    doppler_phase: l.doppler_phase,
    float_value: l.float_value,
    paint_seed: l.paint_seed,
    stickers: l.stickers.map((s) => ({ name: s.name, image: s.image, slot: s.slot, wear: s.wear })),
    price_usd: l.price_usd,
    category: l.category,
    rarity: l.rarity,
    image: l.image,
    inspect_link: l.inspect_link,
    tradable: l.tradable,
    tradable_at: l.tradable_at,
    delivery: l.delivery,
    refund_percent: l.refund_percent,
    listed_at: l.listed_at,
  };
}

/** Builds the record of `listing` for game `appId`, writing its JSON into `arena`. */
export function createIndexedListing(
  appId: number,
  listing: Listing,
  tables: RecordTables,
  arena: JsonArena,
): ListingRecord {
  const record = new ListingRecord(appId, listing, tables);
  arena.store(record, JSON.stringify(orderListingKeys(listing)));
  return record;
}

/**
 * The concrete record. Name-level fields live in its shared group and delivery in its tag, read
 * through getters, which keeps a record near 200 bytes; the arena fields are internal.
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

  get json(): Buffer {
    return this.jsonSlab.bytes.subarray(this.jsonStart, this.jsonEnd);
  }

  get listing(): Listing {
    return JSON.parse(this.jsonSlab.bytes.toString('utf8', this.jsonStart, this.jsonEnd)) as Listing;
  }
}

function intern(pool: StringPool, value: string): string {
  const shared = pool.get(value);
  if (shared !== undefined) return shared;
  pool.set(value, value);
  return value;
}
