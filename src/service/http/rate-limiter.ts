/** Per-key rate limits over a true rolling window: a log of accepted requests, not fixed buckets. */
import { RollingWindowCounter } from '../../shared/rolling-window.js';

/** Request classes of the specification's Limits table. */
export type RateClass = 'read' | 'orders' | 'p2p_write' | 'sell_write' | 'snapshot';

/** Requests allowed per rolling window, per class. */
export type RateLimits = Record<RateClass, number>;

/** The specification's limits per API key and rolling minute (sell_write, the Instant Sell quotes and orders, is designed). */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  read: 100,
  orders: 250,
  p2p_write: 30,
  sell_write: 30,
  snapshot: 1,
};

/** The outcome of asking for a slot. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

/**
 * Counts accepted requests per (key, class) over the last `windowMs`; refused ones do not count.
 * Subjects whose window has emptied are forgotten, so memory follows the subjects active in the
 * last window, not every address ever seen.
 */
export class RollingWindowLimiter {
  private readonly windows: Record<RateClass, RollingWindowCounter>;

  constructor(
    limits: RateLimits = DEFAULT_RATE_LIMITS,
    private readonly windowMs = 60_000,
  ) {
    this.windows = {
      read: new RollingWindowCounter(limits.read, windowMs),
      orders: new RollingWindowCounter(limits.orders, windowMs),
      p2p_write: new RollingWindowCounter(limits.p2p_write, windowMs),
      sell_write: new RollingWindowCounter(limits.sell_write, windowMs),
      snapshot: new RollingWindowCounter(limits.snapshot, windowMs),
    };
  }

  /** Subjects tracked over every class (bounded by those active within one window). */
  get size(): number {
    return Object.values(this.windows).reduce((sum, window) => sum + window.size, 0);
  }

  /** Takes a slot for `subject` in `rateClass` at `now`, or says how many whole seconds until one frees. */
  take(subject: string, rateClass: RateClass, now: number): RateDecision {
    const window = this.windows[rateClass];
    if (window.tryAcquire(subject, now)) return { allowed: true };
    const waitMs = window.retryAfter(subject, now);
    // A limit of 0 never frees by time; a window's length is then the honest answer.
    const wait = Number.isFinite(waitMs) ? waitMs : this.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), limit: window.limit };
  }

  /** Gives back the most recent slot of `subject` (for a request that turned out not to count). */
  release(subject: string, rateClass: RateClass): void {
    this.windows[rateClass].release(subject);
  }
}
