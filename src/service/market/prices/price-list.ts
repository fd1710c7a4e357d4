/**
 * The minAsk price list: one row per game, market hash name, wear and Doppler phase with the
 * cheapest ask and the count. Like the real feed it is an indicative snapshot rebuilt on a cadence,
 * so it can lag the live listings; `generatedAt` says how old it is.
 */
import { ApiError } from '../../../contract/api-error.js';
import { centsToUsd, GAME_APP_IDS } from '../../../contract/common.js';
import type { Wear } from '../../../contract/listing.js';
import type { PriceRow } from '../../../contract/market.js';
import type { Database } from '../../../shared/database.js';
import type { Clock } from '../../core/clock.js';

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

/** Told of every finished build, with the CS2 rows (the snapshot is built from them). */
export type PriceListListener = (build: { generatedAt: number; cs2: readonly PriceGroup[] }) => Promise<void>;

/**
 * The price list, rebuilt from the committed listings by one DuckDB aggregation on the reader
 * connection, so a rebuild over a million listings never blocks the event loop.
 */
export class PriceList {
  private groups = new Map<number, PriceGroup[]>();
  private builtAt = 0;
  private building: Promise<void> | null = null;
  private readonly listeners: PriceListListener[] = [];

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Runs `listener` after every build (the snapshot follows the list this way). */
  onBuild(listener: PriceListListener): void {
    this.listeners.push(listener);
  }

  /** Rebuilds every game's groups; a call during a build waits for that build and then builds again. */
  async rebuild(): Promise<void> {
    const previous = this.building ?? Promise.resolve();
    const next = previous.then(() => this.build());
    this.building = next.finally(() => {
      if (this.building === next) this.building = null;
    });
    await next;
  }

  private async build(): Promise<void> {
    const generatedAt = this.clock.now();
    const rows = await this.db.read<Record<string, unknown>>(
      `SELECT app_id, market_hash_name AS name, wear, doppler_phase AS phase,
              CAST(min(price_usd) * 100 AS BIGINT) AS min_cents, count(*) AS n
       FROM listings GROUP BY ALL`,
    );
    const next = new Map<number, PriceGroup[]>(GAME_APP_IDS.map((appId) => [appId, []]));
    // Decoded by hand on purpose: a rebuild reads one row per price group (tens of thousands), and
    // a zod row schema costs 2-19× a hand decoder (`npm run bench rows`, see `logEventOf`).
    for (const r of rows) {
      const wear = (r.wear ?? null) as Wear | null;
      const phase = r.phase === null ? null : String(r.phase);
      const name = String(r.name);
      next.get(Number(r.app_id))?.push({
        key: `${name}\u0000${wear ?? ''}\u0000${phase ?? ''}`,
        nameLower: name.toLowerCase(),
        row: {
          market_hash_name: name,
          wear,
          doppler_phase: phase,
          min_ask_usd: centsToUsd(Number(r.min_cents)),
          listed_count: Number(r.n),
        },
      });
    }
    for (const groups of next.values()) groups.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.groups = next;
    this.builtAt = generatedAt;
    for (const listener of this.listeners) await listener({ generatedAt, cs2: this.rows(730) });
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
