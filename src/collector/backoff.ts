/** Exponential backoff with full jitter (the client's formula), for reconnects and failed polls. */
import { backoffMs } from '../client/index.js';

/** Backoff settings. */
export interface BackoffOptions {
  /** @default 500 */
  baseMs?: number;
  /** @default 30_000 */
  capMs?: number;
  /** Random number in [0, 1). @default Math.random */
  random?: () => number;
}

/** Counts consecutive failures and tells how long to wait before the next try. */
export class Backoff {
  private failures = 0;

  constructor(private readonly options: BackoffOptions = {}) {}

  /** The wait after one more failure: a random time up to base × 2^failures, capped. */
  next(): number {
    const { baseMs = 500, capMs = 30_000, random = Math.random } = this.options;
    const wait = backoffMs(this.failures, random, baseMs, capMs);
    this.failures = Math.min(this.failures + 1, 30);
    return wait;
  }

  /** Forgets the failures after a success. */
  reset(): void {
    this.failures = 0;
  }
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
