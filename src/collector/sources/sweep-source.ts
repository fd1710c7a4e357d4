/**
 * Periodic full sweeps of one game by keyset pages: every listing seen lands as an observation,
 * and a listing believed live that a complete sweep did not see has gone. The sweep's position
 * lands with each page, so a restarted collector resumes the sweep it was in. Until a game's first
 * sweep has completed, its live set is known incomplete: that pass reads before every other source
 * (`readFirst`), and its board says how far it is.
 */
import type { Logger } from 'pino';
import type { MarketClient } from '../../client/index.js';
import { readFirst } from '../../client/key-budget.js';
import { type BatchWriter, LISTING_KEYS, type Warehouse } from '../../warehouse/index.js';
import { PayloadWatch } from '../payload-watch.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';
import { SWEEP_PAGE_LISTINGS, type SweepPosition, storedPosition, sweep } from './catch-up.js';

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
      const state = await warehouse.readState(source);
      const resume = storedPosition(state);
      const first = !state.last_sweep_at;
      const read = (onPage?: (position: Readonly<SweepPosition>) => void) =>
        sweep(client, warehouse, writer, {
          appId: options.appId,
          source,
          via: 'sweep',
          resume,
          signal,
          ...(onPage ? { onPage } : {}),
        });
      let result: Awaited<ReturnType<typeof read>>;
      if (first) {
        const progress = { page: resume?.page ?? 0, pages: await estimatePages(warehouse, options.appId) };
        board.status.firstPass = progress;
        result = await readFirst(() =>
          read((position) => {
            progress.page = position.page;
            // Only a figure to show: a failed estimate keeps the last one.
            void estimatePages(warehouse, options.appId)
              .then((pages) => {
                progress.pages = pages === null ? null : Math.max(pages, progress.page);
              })
              .catch(() => undefined);
          }),
        );
        if (result) delete board.status.firstPass;
      } else {
        result = await read();
      }
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

/**
 * About how many pages a full read of `appId` has: the listings its last minAsk list counts, by
 * page; null before a list landed. An estimate only: the list lags the catalogue a little.
 */
async function estimatePages(warehouse: Warehouse, appId: number): Promise<number | null> {
  const [row] = await warehouse.query(
    `SELECT sum(listed_count) AS n FROM minask_prices WHERE app_id = ${Number(appId)}
       AND fetched_at = (SELECT max(fetched_at) FROM minask_prices WHERE app_id = ${Number(appId)})`,
  );
  const listings = row?.n === null || row?.n === undefined ? null : Number(row.n);
  return listings === null ? null : Math.max(1, Math.ceil(listings / SWEEP_PAGE_LISTINGS));
}
