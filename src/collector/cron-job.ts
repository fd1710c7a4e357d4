/**
 * Warehouse work on a cron schedule inside the daemon (model refreshes, exports): one run at a
 * time, a tick that comes while a run is going on is skipped, and a failed run is reported on the
 * status board, never fatal: the next tick retries.
 */
import cron from 'node-cron';
import { StatusBoard } from './source-status.js';

/** Options of {@link scheduleCronJob}. */
export interface CronJobOptions {
  /** Name on the status board. */
  name: string;
  /** Cron expression, evaluated in UTC. */
  cron: string;
  /** One run; returns the rows it wrote (added to the board's `landed`). */
  run(): Promise<number>;
  /** Also run once right away. @default false */
  runAtStart?: boolean;
  /** Called with the error of a failed run (which is also on the board). */
  onError?: (error: unknown) => void;
}

/** A running schedule. */
export interface CronJob {
  board: StatusBoard;
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

/** Starts `options.run` on its schedule. */
export function scheduleCronJob(options: CronJobOptions): CronJob {
  const board = new StatusBoard(options.name);
  board.status.connected = true;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = options
      .run()
      .then(
        (rows) => {
          board.status.landed += rows;
        },
        (error: unknown) => {
          board.error(error);
          options.onError?.(error);
        },
      )
      .finally(() => {
        running = null;
      });
  };
  const job = cron.schedule(options.cron, tick, { timezone: 'UTC' });
  if (options.runAtStart) tick();
  return {
    board,
    async stop() {
      await job.stop();
      board.status.connected = false;
      await running;
    },
  };
}
