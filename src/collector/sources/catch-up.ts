/**
 * Full reads of a game's catalogue: every page lands as observations (its items as the page held
 * them, read leniently) with the read's progress (the cursor) in the same transaction, so an
 * interrupted read resumes where it stopped; at the
 * end, listings believed live that the read did not see, and that nothing else touched since it
 * began, have gone. And the catch-up after a stream resync: the listings that appeared since the
 * last landed event, or the whole catalogue when no event ever landed.
 */

import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import { type BatchWriter, newestListedSql, type Warehouse } from '../../warehouse/index.js';
import { landNewestPages, observationsOf, POLL_OVERLAP_MS } from './newest-pages.js';

/** The listings a page of a full read asks for. */
export const SWEEP_PAGE_LISTINGS = 200;

/** Where a full read stands; stored as the source's state. */
export interface SweepPosition {
  passId: string;
  startedAt: number;
  cursor: string | null;
  /** The number of the page the cursor reads (0 is the first), so a resumed read numbers on. */
  page: number;
}

/** What to read and where to land it. */
export interface SweepOptions {
  appId: number;
  source: string;
  via: 'sweep' | 'catch_up';
  /** Resume an interrupted read instead of starting a new one. */
  resume?: SweepPosition | null;
  /** State keys written with each page. @default {} */
  state?: Record<string, string>;
  /** Whether the position is stored with each page (sweep_* keys) so a restart resumes. @default true */
  persistPosition?: boolean;
  signal?: AbortSignal | undefined;
  /** Told after each page is handed to the writer, with the position after it. */
  onPage?: (position: Readonly<SweepPosition>) => void;
}

/** The outcome of a complete read. */
export interface SweepResult {
  seen: number;
  gone: number;
  position: SweepPosition;
}

/** Reads the whole catalogue of a game page by page; returns null when stopped before the end. */
export async function sweep(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: SweepOptions,
): Promise<SweepResult | null> {
  const startedAt = options.resume?.startedAt ?? Date.now();
  const position: SweepPosition = options.resume ?? {
    passId: `${options.via}-${options.appId}-${startedAt}`,
    startedAt,
    cursor: null,
    page: 0,
  };
  const sort = options.appId === APP_IDS.cs2 ? 'newest' : 'id';
  let seen = 0;
  for (;;) {
    if (options.signal?.aborted) return null;
    // Stamped before the request: the page shows the server at or after this instant.
    const observedAt = Date.now();
    const read = await client.listings.listRaw(
      {
        appId: options.appId,
        sort,
        limit: SWEEP_PAGE_LISTINGS,
        ...(position.cursor ? { cursor: position.cursor } : {}),
      },
      { signal: options.signal },
    );
    const observations = observationsOf(read.items, {
      appId: options.appId,
      observedAt,
      via: options.via,
      passId: position.passId,
      page: position.page,
    });
    position.cursor = read.next_cursor;
    position.page += 1;
    seen += read.items.length;
    await writer.add({
      source: options.source,
      observations,
      state: { ...options.state, ...persisted(options, position, read.next_cursor === null) },
    });
    options.onPage?.(position);
    if (read.next_cursor === null) break;
  }
  await writer.flush();
  const stale = await warehouse.query(
    `SELECT listing_id FROM live_listings WHERE app_id = ${Number(options.appId)}
       AND last_seen_at < make_timestamp(${Math.floor(startedAt)}::BIGINT * 1000)`,
  );
  const detectedAt = Date.now();
  await writer.add({
    source: options.source,
    gone: stale.map((r) => ({
      appId: options.appId,
      listingId: String(r.listing_id),
      detectedAt,
      via: options.via,
    })),
    state: { ...options.state, ...persisted(options, position, true) },
  });
  return { seen, gone: stale.length, position };
}

function persisted(
  options: SweepOptions,
  position: SweepPosition,
  finished: boolean,
): Record<string, string> {
  return options.persistPosition === false ? {} : positionState(position, finished);
}

/** The state keys of a sweep position; a finished read clears them. */
function positionState(position: SweepPosition, finished: boolean): Record<string, string> {
  if (finished) return { sweep_pass: '', sweep_started_at: '', sweep_cursor: '', sweep_page: '' };
  return {
    sweep_pass: position.passId,
    sweep_started_at: String(position.startedAt),
    sweep_cursor: position.cursor ?? '',
    sweep_page: String(position.page),
  };
}

/** A stored sweep position, or null when no read was interrupted. */
export function storedPosition(state: Record<string, string>): SweepPosition | null {
  if (!state.sweep_pass) return null;
  return {
    passId: state.sweep_pass,
    startedAt: Number(state.sweep_started_at),
    cursor: state.sweep_cursor || null,
    // A position stored before pages were numbered resumes at 0: page numbers only tell apart items without an id.
    page: Number(state.sweep_page) || 0,
  };
}

/** What a catch-up after a resync reads and lands. */
export interface ResyncCatchUpOptions {
  source: string;
  /** Said in the gap ledger, e.g. `resync: <the server's detail>`. */
  reason: string;
  /** ISO 8601 lower bound of the read; null reads the whole CS2 catalogue. */
  after: string | null;
  /** State that lands with the gap ledger row, in the same transaction (asked for then). */
  stateAtEnd: () => Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * The catch-up after a stream resync: the CS2 listings listed since `after`, read with
 * `sort=newest&available_after` (a few pages rather than the whole catalogue; listings that left
 * meanwhile are found by the next complete sweep), or the whole catalogue when `after` is null.
 * The gap ledger records it with the rows it brought, together with `stateAtEnd()`; returns them.
 */
export async function catchUpAfterResync(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: ResyncCatchUpOptions,
): Promise<number> {
  const { source, after, signal } = options;
  const startedAt = Date.now();
  let rows: number;
  let detail: string;
  if (after === null) {
    const appId = APP_IDS.cs2;
    const result = await sweep(client, warehouse, writer, {
      appId,
      source,
      via: 'catch_up',
      persistPosition: false,
      signal,
    });
    if (!result) throw new Error('the catch-up was stopped before its end');
    rows = result.seen;
    detail = `${options.reason}; read the whole catalogue; ${result.gone} listings had left meanwhile`;
  } else {
    const passId = `catch_up-${APP_IDS.cs2}-${startedAt}`;
    rows = await landNewestPages(client, writer, { source, via: 'catch_up', passId, after, signal });
    signal?.throwIfAborted();
    detail = `${options.reason}; re-read the listings listed since ${after}; listings that left meanwhile are found by the next sweep`;
  }
  await writer.add({
    source,
    gaps: [{ kind: 'catch_up', startedAt, endedAt: Date.now(), rows, detail }],
    state: options.stateAtEnd(),
  });
  return rows;
}

/**
 * Where the catch-up after a resync starts: the newest `listed_at` of a CS2 listing the stream
 * landed, less the overlap of the specification (the events handed to the writer count as landed);
 * null when no event ever landed.
 */
export async function resyncPoint(warehouse: Warehouse, writer: BatchWriter): Promise<string | null> {
  await writer.flush();
  // The live set's mark, not a read of the event history: this runs at every resync.
  const [last] = await warehouse.query(newestListedSql(APP_IDS.cs2));
  if (last?.at === null || last?.at === undefined) return null;
  return new Date(Number(last.at) - POLL_OVERLAP_MS).toISOString();
}
