/**
 * Delta polling of CS2: `/listings?sort=newest&available_after=<max listed_at seen − 60 s>`, the
 * overlap deduplicated by id, with the watermark landed in the same transaction as the rows. It
 * covers what the stream may miss while disconnected; the stream stays the primary source.
 */

import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import type { BatchWriter, Warehouse } from '../../warehouse/index.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';

/** The overlap the specification asks for: commits can carry an earlier stamp than one already seen. */
export const POLL_OVERLAP_MS = 60_000;

/** Creates the CS2 delta-poll task. */
export function createPollTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { intervalMs?: number } = {},
): SourceTask {
  const source = `poll:${APP_IDS.cs2}`;
  const board = new StatusBoard(source);
  return {
    board,
    intervalMs: options.intervalMs ?? 30_000,
    async run(signal) {
      const state = await warehouse.readState(source);
      let watermark = Number(state.watermark ?? 0);
      const after = watermark > 0 ? new Date(watermark - POLL_OVERLAP_MS).toISOString() : undefined;
      const passId = `poll-${Date.now()}`;
      let landed = 0;
      let cursor: string | null = null;
      do {
        if (signal.aborted) break;
        // Stamped before the request: the page shows the server at or after this instant.
        const observedAt = Date.now();
        const page = await client.listings(
          {
            appId: APP_IDS.cs2,
            sort: 'newest',
            limit: 200,
            ...(after ? { available_after: after } : {}),
            ...(cursor ? { cursor } : {}),
          },
          { signal },
        );
        for (const listing of page.items)
          watermark = Math.max(watermark, Date.parse(listing.listed_at ?? '') || 0);
        board.status.received += page.items.length;
        await writer.add({
          source,
          observations: page.items.map((listing) => ({
            appId: APP_IDS.cs2,
            listing,
            observedAt,
            via: 'poll' as const,
            passId,
          })),
          state: { watermark: String(watermark) },
        });
        landed += page.items.length;
        cursor = page.next_cursor;
        // A first poll with no watermark only needs the newest page to set one; sweeps read the rest.
        if (after === undefined) break;
      } while (cursor);
      return landed;
    },
  };
}
