/**
 * Scheduled parquet exports inside the daemon: on a cron schedule (UTC), the days since yesterday
 * are exported again, one run at a time. A failed run is reported, never fatal: the next one retries.
 */
import cron from 'node-cron';
import { exportModels, type Warehouse } from '../warehouse/index.js';
import { StatusBoard } from './source-status.js';

/** Options of {@link scheduleExports}. */
export interface ExportScheduleOptions {
  /**
   * Cron expression, evaluated in UTC.
   * @example '0 * * * *' (at the top of every hour)
   */
  cron: string;
  /** The export folder. @default 'data/exports' */
  dir?: string;
  /** Called with the error of a failed run (which is also on the board). */
  onError?: (error: unknown) => void;
}

/** Running scheduled exports. */
export interface ExportSchedule {
  /** Status named `export`: `landed` counts rows exported, `lastError` is the last failed run. */
  board: StatusBoard;
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** Starts exporting `warehouse` on `options.cron`; a tick that comes while a run is going on is skipped. */
export function scheduleExports(warehouse: Warehouse, options: ExportScheduleOptions): ExportSchedule {
  const board = new StatusBoard('export');
  board.status.connected = true;
  let running: Promise<void> | null = null;
  const runOnce = async () => {
    // Yesterday too: rows of a day keep arriving after midnight, until that day's last refresh.
    const since = new Date(warehouse.clock() - DAY_MS).toISOString().slice(0, 10);
    try {
      const summary = await exportModels(warehouse, { to: options.dir ?? 'data/exports', since });
      board.status.landed += summary.models.reduce((sum, m) => sum + m.rows, 0);
    } catch (error) {
      board.error(error);
      options.onError?.(error);
    }
  };
  const job = cron.schedule(
    options.cron,
    () => {
      if (running) return;
      running = runOnce().finally(() => {
        running = null;
      });
    },
    { timezone: 'UTC' },
  );
  return {
    board,
    async stop() {
      await job.stop();
      board.status.connected = false;
      await running;
    },
  };
}
