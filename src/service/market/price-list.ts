/**
 * The minAsk price list: one row per game, market hash name, wear and Doppler phase with the
 * cheapest ask and the count. Like the real feed it is an indicative snapshot rebuilt on a cadence,
 * so it can lag the live listings; `generatedAt` says how old it is.
 */
import { ApiError } from '../../contract/api-error.js';
import { centsToUsd } from '../../contract/common.js';
import type { Wear } from '../../contract/listing.js';
import type { PriceRow } from '../../contract/market.js';
import type { Clock } from '../clock.js';
import { ALL_APP_IDS } from './games.js';
import type { ListingIndex } from './listing-index.js';

/** One price group with the lower-case name it is searched by. */
export interface PriceGroup {
  row: PriceRow;
  nameLower: string;
  /** Sort and cursor key: name, wear and phase joined. */
  key: string;
}

/** What to read from the price list. */
export interface PriceQuery {
  appId: number;
  name?: string | undefined;
  search?: string | undefined;
  wear?: Wear | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The price list, rebuilt from the catalogue's index. */
export class PriceList {
  private groups = new Map<number, PriceGroup[]>();
  private builtAt = 0;

  constructor(
    private readonly index: ListingIndex,
    private readonly clock: Clock,
  ) {}

  /** Rebuilds every game's groups from the live listings. */
  rebuild(): void {
    const next = new Map<number, PriceGroup[]>();
    for (const appId of ALL_APP_IDS) next.set(appId, this.buildGame(appId));
    this.groups = next;
    this.builtAt = this.clock.now();
  }

  /** When the list was last built (epoch ms). */
  generatedAt(): number {
    return this.builtAt;
  }

  /** Number of price groups over all games. */
  groupCount(): number {
    let count = 0;
    for (const groups of this.groups.values()) count += groups.length;
    return count;
  }

  /** Every group of a game, in key order. */
  rows(appId: number): readonly PriceGroup[] {
    return this.groups.get(appId) ?? [];
  }

  /** A page of rows matching the query, in (name, wear, phase) order. */
  query(query: PriceQuery): { items: PriceRow[]; nextCursor: string | null } {
    const after = query.cursor === undefined ? null : parsePriceCursor(query.cursor, query.appId);
    const name = query.name?.toLowerCase();
    const tokens = name === undefined ? (query.search?.toLowerCase().split(/\s+/).filter(Boolean) ?? []) : [];
    const items: PriceRow[] = [];
    let last: PriceGroup | undefined;
    let more = false;
    for (const group of this.rows(query.appId)) {
      if (after !== null && group.key <= after) continue;
      if (name !== undefined && group.nameLower !== name) continue;
      if (tokens.length > 0 && !tokens.every((t) => group.nameLower.includes(t))) continue;
      if (query.wear !== undefined && group.row.wear !== query.wear) continue;
      if (items.length === query.limit) {
        more = true;
        break;
      }
      items.push(group.row);
      last = group;
    }
    return { items, nextCursor: more && last ? priceCursor(query.appId, last.key) : null };
  }

  private buildGame(appId: number): PriceGroup[] {
    const byKey = new Map<
      string,
      { name: string; wear: Wear | null; phase: string | null; min: number; count: number }
    >();
    for (const listing of this.index.values(appId)) {
      const name = listing.listing.market_hash_name;
      const key = `${name}\u0000${listing.wear ?? ''}\u0000${listing.phase ?? ''}`;
      const group = byKey.get(key);
      if (group) {
        group.min = Math.min(group.min, listing.priceCents);
        group.count += 1;
      } else {
        byKey.set(key, { name, wear: listing.wear, phase: listing.phase, min: listing.priceCents, count: 1 });
      }
    }
    return [...byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, g]) => ({
        key,
        nameLower: g.name.toLowerCase(),
        row: {
          market_hash_name: g.name,
          wear: g.wear,
          doppler_phase: g.phase,
          min_ask_usd: centsToUsd(g.min),
          listed_count: g.count,
        },
      }));
  }
}

function priceCursor(appId: number, key: string): string {
  return Buffer.from(JSON.stringify({ p: appId, k: key })).toString('base64url');
}

function parsePriceCursor(cursor: string, appId: number): string {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      p?: unknown;
      k?: unknown;
    };
    if (decoded.p === appId && typeof decoded.k === 'string') return decoded.k;
  } catch {
    // fall through to the error below
  }
  throw new ApiError(
    'invalid_param',
    'cursor is not one this endpoint gave for this appId; pass next_cursor back unchanged',
  );
}
