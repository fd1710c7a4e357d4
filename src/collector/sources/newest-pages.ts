/**
 * Reads of the newest CS2 listings, `/listings?sort=newest&available_after=…`, page by page, each
 * page landed as observations with the state it covers in the same transaction. The delta poll and
 * the catch-up after a resync both read this way.
 */
import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
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
  /** The state keys a page lands with, given its listings. @default none */
  stateOf?: (items: readonly Listing[]) => Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** Reads every page of the newest CS2 listings after `options.after`; returns how many it landed. */
export async function landNewestPages(
  client: MarketClient,
  writer: BatchWriter,
  options: NewestPagesOptions,
): Promise<number> {
  const { after, signal } = options;
  let landed = 0;
  let cursor: string | null = null;
  do {
    if (signal?.aborted) break;
    // Stamped before the request: the page shows the server at or after this instant.
    const observedAt = Date.now();
    const page = await client.listings.list(
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
      observations: observationsOf(page.items, {
        appId: APP_IDS.cs2,
        observedAt,
        via: options.via,
        passId: options.passId,
      }),
      ...(options.stateOf ? { state: options.stateOf(page.items) } : {}),
    });
    landed += page.items.length;
    cursor = page.next_cursor;
    // Without a lower bound only the newest page is wanted (a first poll sets its watermark so).
    if (after === undefined) break;
  } while (cursor);
  return landed;
}

/** The observation rows of one page: every listing it holds, seen at `seen.observedAt`. */
export function observationsOf(
  items: readonly Listing[],
  seen: Omit<ObservationRow, 'listing'>,
): ObservationRow[] {
  return items.map((listing) => ({ ...seen, listing }));
}
