/**
 * Delta polling of CS2: `/listings?sort=newest&available_after=<max listed_at seen − 60 s>`, the
 * overlap deduplicated by id, with the watermark landed in the same transaction as the rows. It
 * covers what the stream may miss while disconnected; the stream stays the primary source.
 */

import type { Logger } from 'pino';
import type { MarketClient } from '../../client/index.js';
import { APP_IDS } from '../../contract/common.js';
import { type BatchWriter, LISTING_KEYS, type Warehouse } from '../../warehouse/index.js';
import { PayloadWatch } from '../payload-watch.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';
import { landNewestPages, listedAtOf, POLL_OVERLAP_MS } from './newest-pages.js';

/** Creates the CS2 delta-poll task. */
export function createPollTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { intervalMs?: number; log?: Logger } = {},
): SourceTask {
  const source = `poll:${APP_IDS.cs2}`;
  const board = new StatusBoard(source);
  const watch = new PayloadWatch(warehouse, board, options.log, LISTING_KEYS, ['poll']);
  watch.start();
  return {
    board,
    intervalMs: options.intervalMs ?? 30_000,
    async run(signal) {
      const state = await warehouse.readState(source);
      let watermark = Number(state.watermark ?? 0);
      // A first poll with no watermark only needs the newest page to set one; sweeps read the rest.
      const after = watermark > 0 ? new Date(watermark - POLL_OVERLAP_MS).toISOString() : undefined;
      const landed = await landNewestPages(client, writer, {
        source,
        via: 'poll',
        passId: `poll-${Date.now()}`,
        after,
        signal,
        stateOf: (items) => {
          for (const item of items) watermark = Math.max(watermark, listedAtOf(item));
          board.status.received += items.length;
          return { watermark: String(watermark) };
        },
      });
      // Every page is committed by now: show what its items carried.
      await watch.refresh();
      return landed;
    },
  };
}
