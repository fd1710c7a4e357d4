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
import { landNewestPages, POLL_OVERLAP_MS } from './newest-pages.js';

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
      // A first poll with no watermark only needs the newest page to set one; sweeps read the rest.
      const after = watermark > 0 ? new Date(watermark - POLL_OVERLAP_MS).toISOString() : undefined;
      return landNewestPages(client, writer, {
        source,
        via: 'poll',
        passId: `poll-${Date.now()}`,
        after,
        signal,
        stateOf: (items) => {
          for (const listing of items)
            watermark = Math.max(watermark, Date.parse(listing.listed_at ?? '') || 0);
          board.status.received += items.length;
          return { watermark: String(watermark) };
        },
      });
    },
  };
}
