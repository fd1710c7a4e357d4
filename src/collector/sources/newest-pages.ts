/**
 * Reads of the newest CS2 listings, `/listings?sort=newest&available_after=…`, page by page, each
 * page landed as observations with the state it covers in the same transaction. The delta poll and
 * the catch-up after a resync both read this way. Pages are read leniently: each item lands as the
 * page held it, and only its id (and, for the poll, its `listed_at`) is read here.
 */
import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { BatchWriter, ObservationRow } from '../../warehouse/index.js';

/** The overlap the specification asks for: commits can carry an earlier stamp than one already seen. */
export const POLL_OVERLAP_MS = 60_000;

/** What to read and how to land it. */
export interface NewestPagesOptions {
  /** The collector source the pages land for. */
  source: string;
  via: 'poll' | 'catch_up';
  /** The id of this read; (via, pass, listing) is landed once. */
  passId: string;
  /** ISO 8601 lower bound (`available_after`); without one, only the newest page is read. */
  after: string | undefined;
  /** The state keys a page lands with, given its items as the page held them. @default none */
  stateOf?: (items: readonly unknown[]) => Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** Reads every page of the newest CS2 listings after `options.after`; returns how many items it landed. */
export async function landNewestPages(
  client: MarketClient,
  writer: BatchWriter,
  options: NewestPagesOptions,
): Promise<number> {
  const { after, signal } = options;
  let landed = 0;
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    if (signal?.aborted) break;
    // Stamped before the request: the page shows the server at or after this instant.
    const observedAt = Date.now();
    const read = await client.listings.listRaw(
      {
        appId: APP_IDS.cs2,
        sort: 'newest',
        limit: 200,
        ...(after ? { available_after: after } : {}),
        ...(cursor ? { cursor } : {}),
      },
      { signal },
    );
    await writer.add({
      source: options.source,
      observations: observationsOf(read.items, {
        appId: APP_IDS.cs2,
        observedAt,
        via: options.via,
        passId: options.passId,
        page,
      }),
      ...(options.stateOf ? { state: options.stateOf(read.items) } : {}),
    });
    landed += read.items.length;
    cursor = read.next_cursor;
    // Without a lower bound only the newest page is wanted (a first poll sets its watermark so).
    if (after === undefined || !cursor) break;
  }
  return landed;
}

/** The observation rows of one page: every item it holds, as it held it, seen at `seen.observedAt`. */
export function observationsOf(
  items: readonly unknown[],
  seen: Omit<ObservationRow, 'index' | 'listingId' | 'data'>,
): ObservationRow[] {
  // A page is one JSON document: an item's JSON again is the text the server sent for it.
  return items.map((item, index) => ({ ...seen, index, listingId: idOf(item), data: JSON.stringify(item) }));
}

/** The item's `id` when the item is an object and its id a string, else null (it cannot be deduplicated). */
function idOf(item: unknown): string | null {
  const id = isObject(item) ? item.id : undefined;
  return typeof id === 'string' ? id : null;
}

/** Epoch ms of an item's `listed_at` when it is a timestamp, else 0. */
export function listedAtOf(item: unknown): number {
  const listedAt = isObject(item) ? item.listed_at : undefined;
  return typeof listedAt === 'string' ? Date.parse(listedAt) || 0 : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
