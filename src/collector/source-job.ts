/**
 * A collector task run as a shared job, its outcome kept on the task's status board: transient
 * failures are retried with backoff; terminal ones (bad key, forbidden) stop the task and say why;
 * every other failure is logged and retried at the next turn.
 */
import type { Logger } from 'pino';
import { isTransient } from '../client/index.js';
import { isApiError } from '../contract/api-error.js';
import { type FailureKind, type Job, startJob } from '../shared/jobs/index.js';
import { isKeyRefused, keyRefusedReason } from './key-refusal.js';
import { inSource } from './metrics/source-context.js';
import type { StatusBoard } from './source-status.js';

/** A repeating piece of collection or warehouse work. */
export interface SourceTask {
  board: StatusBoard;
  /** Wait between the end of one run and the next; absent for work on a cron schedule. */
  intervalMs?: number;
  /** One run; returns the rows it landed (a task that counts each write on its board as it commits returns 0). */
  run(signal: AbortSignal): Promise<number>;
  /** Called on a failure before the generic handling; return true when it was handled (retried at the next turn). */
  handle?(error: unknown): boolean;
}

/** How a task is scheduled: its own interval unless a cron expression is given. */
export interface SourceJobOptions {
  /** Cron expression (UTC) instead of the task's interval. */
  cron?: string;
  /** @default true */
  runAtStart?: boolean;
  /** What the failure log lines say, e.g. `model refresh failed`. @default `<name> failed` */
  failure?: string;
}

/** Starts `task`, logging its failures on `log`. */
export function startSourceJob(task: SourceTask, log: Logger, options: SourceJobOptions = {}): Job {
  const { board } = task;
  board.status.connected = true;
  const failure = options.failure ?? `${board.status.name} failed`;
  // A failure the task handled itself (and reported once) is retried quietly.
  let handled = false;
  return startJob({
    name: board.status.name,
    ...(options.cron === undefined ? { everyMs: task.intervalMs ?? 60_000 } : { cron: options.cron }),
    runAtStart: options.runAtStart ?? true,
    run: (signal) => {
      board.status.connected = true;
      return inSource(board.status.name, () => task.run(signal));
    },
    classify: (error) => {
      handled = task.handle?.(error) ?? false;
      return handled ? 'retry' : classify(error);
    },
    onSuccess: (rows) => {
      board.succeeded();
      board.status.landed += rows;
    },
    onError: (error, kind) => {
      board.error(error);
      if (kind === 'terminal') {
        board.status.connected = false;
        board.status.stopped = isApiError(error) ? keyRefusedReason(error.code, error.detail) : String(error);
      }
      if (!handled)
        log[kind === 'terminal' ? 'error' : 'warn']({ err: error, source: board.status.name, kind }, failure);
    },
  });
}

function classify(error: unknown): FailureKind {
  if (isApiError(error) && isKeyRefused(error.code)) return 'terminal';
  // A ban (401 too_many_failed_auth) or an allowlist refusal (403) ends by itself: back off.
  if (isApiError(error) && (error.status === 401 || error.status === 403)) return 'transient';
  return isTransient(error) ? 'transient' : 'retry';
}
