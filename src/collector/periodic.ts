/**
 * Runs a task on an interval until stopped: transient failures are retried with backoff; terminal
 * ones (bad key, forbidden) stop the task and say why; every other failure is logged and retried
 * at the next turn.
 */

import { isTransient } from '../client/index.js';
import { isApiError } from '../contract/api-error.js';
import { Backoff, sleep } from './backoff.js';
import type { StatusBoard } from './source-status.js';

/** A repeating piece of collection work. */
export interface PeriodicTask {
  board: StatusBoard;
  /** Wait between the end of one run and the next. */
  intervalMs: number;
  /** One run; returns the rows it landed. */
  run(signal: AbortSignal): Promise<number>;
  /** Called on a failure before the generic handling; return true when it was handled. */
  handle?(error: unknown): boolean;
}

/** Runs `task` until `signal` aborts. */
export async function runPeriodically(task: PeriodicTask, signal: AbortSignal): Promise<void> {
  const backoff = new Backoff({ baseMs: 1000, capMs: 60_000 });
  while (!signal.aborted) {
    try {
      task.board.status.connected = true;
      task.board.status.landed += await task.run(signal);
      backoff.reset();
      await sleep(task.intervalMs, signal);
    } catch (error) {
      if (signal.aborted) return;
      task.board.error(error);
      if (task.handle?.(error)) {
        await sleep(task.intervalMs, signal);
        continue;
      }
      if (isApiError(error) && (error.status === 401 || error.status === 403)) {
        task.board.status.connected = false;
        task.board.status.stopped = `${error.code}: ${error.detail}`;
        return;
      }
      await sleep(isTransient(error) ? backoff.next() : task.intervalMs, signal);
    }
  }
}
