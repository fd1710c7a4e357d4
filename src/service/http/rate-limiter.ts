/** Per-key rate limits over a true rolling window: a log of accepted requests, not fixed buckets. */

/** Request classes of the specification's Limits table. */
export type RateClass = 'read' | 'orders' | 'p2p_write' | 'snapshot';

/** Requests allowed per rolling window, per class. */
export type RateLimits = Record<RateClass, number>;

/** The specification's limits per API key and rolling minute. */
export const DEFAULT_RATE_LIMITS: RateLimits = { read: 100, orders: 250, p2p_write: 30, snapshot: 1 };

/** The outcome of asking for a slot. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

/** Counts accepted requests per (key, class) over the last `windowMs`; refused ones do not count. */
export class RollingWindowLimiter {
  private readonly logs = new Map<string, number[]>();

  constructor(
    private readonly limits: RateLimits = DEFAULT_RATE_LIMITS,
    private readonly windowMs = 60_000,
  ) {}

  /** Takes a slot for `subject` in `rateClass` at `now`, or says how many whole seconds until one frees. */
  take(subject: string, rateClass: RateClass, now: number): RateDecision {
    const limit = this.limits[rateClass];
    const logKey = `${rateClass}:${subject}`;
    const log = this.logs.get(logKey) ?? [];
    dropBefore(log, now - this.windowMs);
    if (log.length >= limit) {
      const oldest = log[log.length - limit] ?? now;
      const waitMs = oldest + this.windowMs - now;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), limit };
    }
    log.push(now);
    this.logs.set(logKey, log);
    return { allowed: true };
  }

  /** Gives back the most recent slot of `subject` (for a request that turned out not to count). */
  release(subject: string, rateClass: RateClass): void {
    this.logs.get(`${rateClass}:${subject}`)?.pop();
  }
}

/** Removes timestamps at or before `cutoff` from the front of an ascending log. */
function dropBefore(log: number[], cutoff: number): void {
  let drop = 0;
  while (drop < log.length && (log[drop] ?? 0) <= cutoff) drop++;
  if (drop > 0) log.splice(0, drop);
}
