/**
 * Periodic full sweeps of one game by keyset pages: every listing seen lands as an observation,
 * and a listing believed live that a complete sweep did not see has gone. The sweep's position
 * lands with each page, so a restarted collector resumes the sweep it was in.
 */
import type { Logger } from 'pino';
import type { MarketClient } from '../../client/index.js';
import { type BatchWriter, LISTING_KEYS, type Warehouse } from '../../warehouse/index.js';
import { PayloadWatch } from '../payload-watch.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';
import { storedPosition, sweep } from './catch-up.js';

/** Creates the sweep task of a game. */
export function createSweepTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { appId: number; intervalMs?: number; log?: Logger },
): SourceTask {
  const source = `sweep:${options.appId}`;
  const board = new StatusBoard(source);
  // The counts are those of every game's sweeps: items are counted by the pass that read them.
  const watch = new PayloadWatch(warehouse, board, options.log, LISTING_KEYS, ['sweep']);
  watch.start();
  return {
    board,
    intervalMs: options.intervalMs ?? 120_000,
    async run(signal) {
      const resume = storedPosition(await warehouse.readState(source));
      const result = await sweep(client, warehouse, writer, {
        appId: options.appId,
        source,
        via: 'sweep',
        resume,
        signal,
      });
      if (!result) return 0;
      board.status.received += result.seen;
      await writer.add({
        source,
        state: {
          last_sweep_at: String(Date.now()),
          last_sweep_started_at: String(result.position.startedAt),
          last_sweep_rows: String(result.seen),
        },
      });
      // Every page is committed by now: show what its items carried.
      await watch.refresh();
      return result.seen + result.gone;
    },
  };
}
