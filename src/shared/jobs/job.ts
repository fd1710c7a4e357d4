/**
 * One job run on an interval or a cron schedule: never two runs at once, a transient failure
 * retried with backoff, a terminal one stopping the job with its reason, a status to show, and a
 * `stop()` that lets the run in progress finish and starts no other.
 */
import { Backoff, type BackoffOptions } from './backoff.js';
import { type CronSchedule, type CronScheduler, nodeCronScheduler } from './cron-scheduler.js';

/**
 * What a failure means: `transient` retries after a backoff, `terminal` stops the job for good,
 * `retry` waits for the next regular run.
 */
export type FailureKind = 'transient' | 'terminal' | 'retry';

/**
 * Options of {@link startJob}; give `everyMs` or `cron`.
 *
 * @example
 * const job = startJob({ name: 'prices', everyMs: 60_000, run: () => prices.rebuild(),
 *   onError: (error) => log.error({ err: error }, 'price list rebuild failed') });
 * await job.stop();
 */
export interface JobOptions<T> {
  /** Shown in the status and in errors. */
  name: string;
  /** Milliseconds from the end of one run to the start of the next. */
  everyMs?: number;
  /** Cron expression, evaluated in UTC, e.g. `'0 * * * *'`; a tick during a run is skipped. */
  cron?: string;
  /** One run; `signal` aborts when the job is stopped. */
  run(signal: AbortSignal): Promise<T>;
  /** Also run once right away. @default false */
  runAtStart?: boolean;
  /** Sorts a failure into transient, terminal or retry. @default every failure is `retry` */
  classify?(error: unknown): FailureKind;
  /** Called with the result of a successful run. */
  onSuccess?(result: T): void;
  /** Called with every failure (already recorded in the status) and what it was taken for. */
  onError?(error: unknown, kind: FailureKind): void;
  /** Waits after consecutive transient failures. @default { baseMs: 1000, capMs: 60_000 } */
  backoff?: BackoffOptions;
  /** Where cron ticks come from. @default node-cron */
  cronScheduler?: CronScheduler;
}

/** What a job is doing. */
export interface JobStatus {
  name: string;
  /** A run is in progress. */
  running: boolean;
  /** Runs started so far. */
  runs: number;
  /** Failures since the last success. */
  consecutiveFailures: number;
  /** When the last run started (ISO 8601), or null. */
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  /** Message of the last failure, kept after later successes. */
  lastError: string | null;
  lastErrorAt: string | null;
  /** Why a terminal failure stopped the job for good, else null. */
  stopped: string | null;
}

/** A started job. */
export interface Job {
  readonly name: string;
  /** A copy of the current status. */
  status(): JobStatus;
  /** Runs now unless the job is stopped; while a run is in progress, waits for that one instead. */
  trigger(): Promise<void>;
  /** Starts no new run, aborts the signal of the one in progress, and waits for it to end. */
  stop(): Promise<void>;
}

/** Starts a job on its interval or cron schedule. */
export function startJob<T>(options: JobOptions<T>): Job {
  if ((options.everyMs === undefined) === (options.cron === undefined))
    throw new Error(`job ${options.name}: give everyMs or cron, not both nor neither`);
  if (options.everyMs !== undefined && !(options.everyMs > 0))
    throw new Error(`job ${options.name}: everyMs must be a positive number of milliseconds`);
  const runner = new JobRunner(options);
  runner.start();
  return runner;
}

class JobRunner<T> implements Job {
  readonly name: string;
  private readonly state: JobStatus;
  private readonly backoff: Backoff;
  private readonly aborter = new AbortController();
  private current: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private schedule: CronSchedule | null = null;
  private finished = false;

  constructor(private readonly options: JobOptions<T>) {
    this.name = options.name;
    this.backoff = new Backoff(options.backoff ?? {});
    this.state = {
      name: options.name,
      running: false,
      runs: 0,
      consecutiveFailures: 0,
      lastRunAt: null,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      stopped: null,
    };
  }

  start(): void {
    const { cron, everyMs } = this.options;
    if (cron !== undefined)
      this.schedule = (this.options.cronScheduler ?? nodeCronScheduler)(cron, () => this.trigger());
    if (this.options.runAtStart) void this.trigger();
    else if (everyMs !== undefined) this.wait(everyMs);
  }

  status(): JobStatus {
    return { ...this.state };
  }

  trigger(): Promise<void> {
    if (this.current) return this.current;
    if (this.finished) return Promise.resolve();
    this.clearTimer();
    // Callbacks that throw have nobody left to tell; the job goes on.
    this.current = this.runOnce()
      .catch(() => undefined)
      .finally(() => {
        this.current = null;
      });
    return this.current;
  }

  async stop(): Promise<void> {
    if (!this.finished) {
      const unscheduled = this.halt();
      this.aborter.abort();
      await unscheduled;
    }
    await this.current;
  }

  private async runOnce(): Promise<void> {
    const { state, options } = this;
    state.running = true;
    state.runs += 1;
    state.lastRunAt = new Date().toISOString();
    let next = options.everyMs ?? null;
    try {
      const result = await options.run(this.aborter.signal);
      this.backoff.reset();
      state.consecutiveFailures = 0;
      state.lastSuccessAt = new Date().toISOString();
      options.onSuccess?.(result);
    } catch (error) {
      // A run cut short by stop() is not a failure.
      if (this.aborter.signal.aborted) return;
      const kind = options.classify?.(error) ?? 'retry';
      state.consecutiveFailures += 1;
      state.lastError = error instanceof Error ? error.message : String(error);
      state.lastErrorAt = new Date().toISOString();
      if (kind === 'terminal') {
        state.stopped = state.lastError;
        void this.halt();
      } else if (kind === 'transient') next = this.backoff.next();
      options.onError?.(error, kind);
    } finally {
      state.running = false;
    }
    if (next !== null) this.wait(next);
  }

  /** Schedules the next run; a cron tick that comes first takes its place. */
  private wait(ms: number): void {
    if (this.finished) return;
    this.clearTimer();
    this.timer = setTimeout(() => void this.trigger(), ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private halt(): Promise<void> {
    this.finished = true;
    this.clearTimer();
    const unscheduled = Promise.resolve(this.schedule?.stop()).catch(() => undefined);
    this.schedule = null;
    return unscheduled;
  }
}
