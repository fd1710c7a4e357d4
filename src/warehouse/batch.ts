/** What collectors hand the warehouse: batches of rows of one source, with that source's progress markers. */
import type { Listing } from '../contract/listing.js';
import type { PriceRow } from '../contract/market.js';

/** One event of the listing stream, as received. Times are epoch milliseconds. */
export interface StreamEventRow {
  /** SSE event id; an event already landed is skipped, so replaying one after a crash is harmless. */
  eventId: string;
  kind: 'new' | 'gone';
  listingId: string;
  appId: number;
  /** The listing of a `new` event; null for `gone`. */
  listing: Listing | null;
  receivedAt: number;
}

/** A listing a poll, sweep or catch-up saw live. */
export interface ObservationRow {
  appId: number;
  listing: Listing;
  observedAt: number;
  via: 'poll' | 'sweep' | 'catch_up';
  /** The sweep id or poll window; (via, passId, listing id) is landed once. */
  passId: string;
}

/** A listing a sweep or catch-up no longer found. */
export interface GoneRow {
  appId: number;
  listingId: string;
  detectedAt: number;
  via: 'sweep' | 'catch_up';
}

/**
 * A period a source may have missed data in (or recovered it by a catch-up). The same source, kind
 * and start identify a gap: sending it again updates it, e.g. to set `endedAt`.
 */
export interface GapRow {
  /** e.g. `resync`, `watchdog_reconnect`, `reconnect`, `catch_up`, `restart`. */
  kind: string;
  startedAt: number;
  /** Null while the gap is still open. */
  endedAt: number | null;
  rows: number;
  detail: string;
}

/** A CS2 price snapshot fetch: a downloaded file of {@link PriceRow} lines, or a 304. */
export type SnapshotFetch =
  | {
      status: 'downloaded';
      etag: string;
      generatedAt: number | null;
      fetchedAt: number;
      /** A local `.ndjson.gz` (or `.ndjson`) file of PriceRow lines; keep it until the write has committed. */
      file: string;
    }
  | { status: 'unchanged'; etag: string; fetchedAt: number };

/** One game's minAsk price list. */
export interface MinAskList {
  appId: number;
  fetchedAt: number;
  generatedAt: number;
  rows: PriceRow[];
}

/** FX rates: units of each currency per 1 USD. */
export interface FxRates {
  updatedAt: number;
  fetchedAt: number;
  rates: Record<string, number>;
}

/**
 * Everything one source hands over at once. Within a batch the warehouse applies `events`, then
 * `observations`, then `gone`; `state` is written in the same transaction as the rows.
 *
 * @example
 * { source: 'stream', events: [...], state: { last_event_id: 'abcdefgh-42' } }
 */
export interface WarehouseBatch {
  /** e.g. `stream`, `poll:730`, `sweep:570`, `snapshot`, `prices:730`, `fx`. */
  source: string;
  events?: StreamEventRow[];
  observations?: ObservationRow[];
  gone?: GoneRow[];
  snapshot?: SnapshotFetch;
  minask?: MinAskList;
  fx?: FxRates;
  gaps?: GapRow[];
  /** The source's progress markers (last event id, poll watermark, sweep position, ETag), upserted by key. */
  state?: Record<string, string>;
}

/** What one committed batch landed. */
export interface LoadSummary {
  loadId: string;
  source: string;
  /** Rows the batch landed in the landing tables (`loads.rows`); changes to `live_listings` and state are not counted. */
  rows: number;
  /** Rows inserted, updated or deleted per table, `live_listings` included, for the tables the batch touched. */
  tables: Record<string, number>;
}

/** What one `write` committed, in batch order. */
export interface WriteSummary {
  loads: LoadSummary[];
  rows: number;
}

/** How many rows a batch carries, counting an otherwise empty batch as one. */
export function countBatchRows(batch: WarehouseBatch): number {
  const rows =
    (batch.events?.length ?? 0) +
    (batch.observations?.length ?? 0) +
    (batch.gone?.length ?? 0) +
    (batch.gaps?.length ?? 0) +
    (batch.minask?.rows.length ?? 0) +
    (batch.fx ? Object.keys(batch.fx.rates).length : 0) +
    (batch.snapshot ? 1 : 0);
  return Math.max(1, rows);
}
