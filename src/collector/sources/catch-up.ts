/**
 * Full reads of a game's catalogue: every page lands as observations with the read's progress
 * (the cursor) in the same transaction, so an interrupted read resumes where it stopped; at the
 * end, listings believed live that the read did not see, and that nothing else touched since it
 * began, have gone.
 */

import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { BatchWriter, Warehouse } from '../../warehouse/index.js';

/** Where a full read stands; stored as the source's state. */
export interface SweepPosition {
  passId: string;
  startedAt: number;
  cursor: string | null;
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
  signal?: AbortSignal;
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
  };
  const sort = options.appId === APP_IDS.cs2 ? 'newest' : 'id';
  let seen = 0;
  for (;;) {
    if (options.signal?.aborted) return null;
    // Stamped before the request: the page shows the server at or after this instant.
    const observedAt = Date.now();
    const page = await client.listings(
      {
        appId: options.appId,
        sort,
        limit: 200,
        ...(position.cursor ? { cursor: position.cursor } : {}),
      },
      { signal: options.signal },
    );
    position.cursor = page.next_cursor;
    seen += page.items.length;
    await writer.add({
      source: options.source,
      observations: page.items.map((listing) => ({
        appId: options.appId,
        listing,
        observedAt,
        via: options.via,
        passId: position.passId,
      })),
      state: { ...options.state, ...persisted(options, position, page.next_cursor === null) },
    });
    if (page.next_cursor === null) break;
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
  if (finished) return { sweep_pass: '', sweep_started_at: '', sweep_cursor: '' };
  return {
    sweep_pass: position.passId,
    sweep_started_at: String(position.startedAt),
    sweep_cursor: position.cursor ?? '',
  };
}

/** A stored sweep position, or null when no read was interrupted. */
export function storedPosition(state: Record<string, string>): SweepPosition | null {
  if (!state.sweep_pass) return null;
  return {
    passId: state.sweep_pass,
    startedAt: Number(state.sweep_started_at),
    cursor: state.sweep_cursor || null,
  };
}

/** A one-off full read after a resync, recorded in the gap ledger with the rows it brought. */
export async function catchUp(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { appId: number; source: string; reason: string; signal?: AbortSignal },
): Promise<number> {
  const startedAt = Date.now();
  const result = await sweep(client, warehouse, writer, {
    appId: options.appId,
    source: options.source,
    via: 'catch_up',
    persistPosition: false,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  await writer.add({
    source: options.source,
    gaps: [
      {
        kind: 'catch_up',
        startedAt,
        endedAt: Date.now(),
        rows: result?.seen ?? 0,
        detail: `${options.reason}; ${result?.gone ?? 0} listings had left meanwhile`,
      },
    ],
  });
  return result?.seen ?? 0;
}
