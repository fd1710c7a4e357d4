/** Exponential backoff with full jitter: how long to wait after each consecutive failure. */

/** Backoff settings. */
export interface BackoffOptions {
  /** The first wait's ceiling. @default 1000 */
  baseMs?: number;
  /** The longest wait. @default 60_000 */
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
    const { baseMs = 1000, capMs = 60_000, random = Math.random } = this.options;
    const wait = Math.floor(random() * Math.min(capMs, baseMs * 2 ** this.failures));
    this.failures = Math.min(this.failures + 1, 30);
    return wait;
  }

  /** Forgets the failures after a success. */
  reset(): void {
    this.failures = 0;
  }
}
