/**
 * The price sources: the bulk snapshot once a minute with If-None-Match (a 200 is streamed to a
 * temporary file whose lines land as sent, with its ETag; a 304 is recorded as unchanged; its
 * board counts as landed the lines and the fetch's own row), the
 * minAsk list of each game, and the FX rates. Pages are read leniently and land raw: a row that
 * breaks the contract is landed (and counted) like the others, never a reason to stop.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { MarketClient } from '../../client/index.js';
import { isApiError } from '../../contract/api-error.js';
import { type BatchWriter, FX_KEYS, PRICE_ROW_KEYS, type Warehouse } from '../../warehouse/index.js';
import { PayloadWatch } from '../payload-watch.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';
import { timeOf } from './lenient-values.js';

/** Creates the snapshot task (its cadence is kept by the daemon's cron schedule); `log` hears of a 402. */
export function createSnapshotTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  log: Logger,
): SourceTask {
  const source = 'snapshot';
  const board = new StatusBoard(source);
  const watch = new PayloadWatch(warehouse, board, log, PRICE_ROW_KEYS);
  return {
    board,
    handle: (error) => reportUnfunded(board, error, log),
    async run(signal) {
      await watch.ready();
      const state = await warehouse.readState(source);
      const fetchedAt = Date.now();
      const answer = await client.prices.snapshot({ ...(state.etag ? { etag: state.etag } : {}), signal });
      if (answer.status === 304) {
        await writer.add({ source, snapshot: { status: 'unchanged', etag: answer.etag, fetchedAt } });
        // The fetch's own row in snapshot_fetches.
        return 1;
      }
      // Beside the staged rows: the one folder of its own the locked-down warehouse may read.
      const dir = await mkdtemp(join(warehouse.stagingDir, 'snapshot-'));
      try {
        const file = join(dir, 'snapshot.ndjson.gz');
        await pipeline(answer.body, createWriteStream(file), { signal });
        const generatedAt = answer.generatedAt ? Date.parse(answer.generatedAt) : null;
        const etag = answer.etag ?? '';
        await writer.add({
          source,
          snapshot: { status: 'downloaded', etag, generatedAt, fetchedAt, file },
          state: { etag },
        });
        await watch.refresh();
        board.status.received += 1;
        return 1 + (await linesLanded(warehouse, fetchedAt));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The lines a downloaded snapshot landed (stored, or recorded as repeats of stored ones), as its
 * row in `snapshot_fetches` counts them (none when a file of its ETag had landed already): so the
 * snapshot's `landed` counts lines, as the report's rows landed (`loads.rows`) do, not snapshots.
 */
async function linesLanded(warehouse: Warehouse, fetchedAt: number): Promise<number> {
  const [fetch] = await warehouse.query(
    `SELECT rows FROM snapshot_fetches WHERE epoch_ms(fetched_at) = ${fetchedAt} AND status = 'downloaded'`,
  );
  return Number(fetch?.rows ?? 0);
}

/** Creates the minAsk task of a game; `options.log` hears of a 402. */
export function createPricesTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { appId: number; intervalMs?: number; log: Logger },
): SourceTask {
  const source = `prices:${options.appId}`;
  const board = new StatusBoard(source);
  const watch = new PayloadWatch(warehouse, board, options.log, PRICE_ROW_KEYS);
  return {
    board,
    intervalMs: options.intervalMs ?? 300_000,
    handle: (error) => reportUnfunded(board, error, options.log),
    async run(signal) {
      await watch.ready();
      const fetchedAt = Date.now();
      const rows: unknown[] = [];
      let generatedAt: number | null = null;
      let cursor: string | null = null;
      do {
        const page = await client.lenient.prices(
          {
            appId: options.appId,
            limit: 5000,
            ...(cursor ? { cursor } : {}),
          },
          { signal },
        );
        rows.push(...page.items);
        generatedAt = timeOf(page.generated_at);
        cursor = page.next_cursor;
      } while (cursor);
      board.status.received += rows.length;
      board.status.stopped = null;
      await writer.add({
        source,
        minask: { appId: options.appId, fetchedAt, generatedAt, rows },
        state: { fetched_at: String(fetchedAt) },
      });
      await watch.refresh();
      return rows.length;
    },
  };
}

/** Creates the FX task; `options.log` hears of a new field. */
export function createFxTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { intervalMs?: number; log?: Logger } = {},
): SourceTask {
  const source = 'fx';
  const board = new StatusBoard(source);
  const watch = new PayloadWatch(warehouse, board, options.log, FX_KEYS);
  return {
    board,
    intervalMs: options.intervalMs ?? 300_000,
    async run(signal) {
      await watch.ready();
      const fetchedAt = Date.now();
      const answer = await client.lenient.currency({ signal });
      const rates = answer.rates;
      const count = typeof rates === 'object' && rates !== null ? Object.keys(rates).length : 0;
      board.status.received += count;
      await writer.add({
        source,
        fx: { updatedAt: timeOf(answer.updated_at), fetchedAt, rates, answer },
        state: { updated_at: String(answer.updated_at) },
      });
      await watch.refresh();
      return count;
    },
  };
}

/** A 402 on the price feed is said once, clearly, and the source keeps trying quietly. */
function reportUnfunded(board: StatusBoard, error: unknown, log: Logger): boolean {
  if (!isApiError(error) || error.code !== 'insufficient_settled_balance') return false;
  if (board.status.stopped === null) {
    board.status.stopped =
      'the price feed needs a funded account (402 insufficient_settled_balance): fund the account; retrying';
    log.warn({ source: board.status.name }, board.status.stopped);
  }
  return true;
}
