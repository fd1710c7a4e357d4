/**
 * Exponential backoff with full jitter: how long to wait after each consecutive failure. The one
 * formula of the project: the jobs, the collector's sources and the client's retries all use it.
 */

/** Backoff settings. */
export interface BackoffOptions {
  /** The first wait's ceiling. @default 1000 */
  baseMs?: number;
  /** The longest wait. @default 60_000 */
  capMs?: number;
  /** Random number in [0, 1). @default Math.random */
  random?: () => number;
}

/** Doubling stops here: base × 2^30 is past any cap, and 2^failures stays an exact number. */
const MAX_DOUBLINGS = 30;

/**
 * The wait after `failures` earlier failures (0 for the first retry): a uniform random time up
 * to min(cap, base × 2^failures), in whole milliseconds.
 *
 * @example backoffWaitMs(2, { baseMs: 500, capMs: 30_000 }) // between 0 and 1999
 */
export function backoffWaitMs(failures: number, options: BackoffOptions = {}): number {
  const { baseMs = 1000, capMs = 60_000, random = Math.random } = options;
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** Math.min(failures, MAX_DOUBLINGS)));
}

/** Counts consecutive failures and tells how long to wait before the next try. */
export class Backoff {
  private failures = 0;

  constructor(private readonly options: BackoffOptions = {}) {}

  /** The wait after one more failure: a random time up to base × 2^failures, capped. */
  next(): number {
    const wait = backoffWaitMs(this.failures, this.options);
    this.failures = Math.min(this.failures + 1, MAX_DOUBLINGS);
    return wait;
  }

  /** Forgets the failures after a success. */
  reset(): void {
    this.failures = 0;
  }
}
