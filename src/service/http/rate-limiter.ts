/** Per-key rate limits over a true rolling window: a log of accepted requests, not fixed buckets. */

/** Request classes of the specification's Limits table. */
export type RateClass = 'read' | 'orders' | 'p2p_write' | 'snapshot';

/** Requests allowed per rolling window, per class. */
export type RateLimits = Record<RateClass, number>;

/** The specification's limits per API key and rolling minute. */
export const DEFAULT_RATE_LIMITS: RateLimits = { read: 100, orders: 250, p2p_write: 30, snapshot: 1 };

/** The outcome of asking for a slot. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

/** Accepted request times of one (key, class), oldest first from `head`. */
interface RequestLog {
  times: number[];
  head: number;
}

/** Counts accepted requests per (key, class) over the last `windowMs`; refused ones do not count. */
export class RollingWindowLimiter {
  private readonly logs = new Map<string, RequestLog>();

  constructor(
    private readonly limits: RateLimits = DEFAULT_RATE_LIMITS,
    private readonly windowMs = 60_000,
  ) {}

  /** Takes a slot for `subject` in `rateClass` at `now`, or says how many whole seconds until one frees. */
  take(subject: string, rateClass: RateClass, now: number): RateDecision {
    const limit = this.limits[rateClass];
    const logKey = `${rateClass}:${subject}`;
    const log = this.logs.get(logKey) ?? { times: [], head: 0 };
    dropBefore(log, now - this.windowMs);
    const count = log.times.length - log.head;
    if (count >= limit) {
      const oldest = log.times[log.times.length - limit] ?? now;
      const waitMs = oldest + this.windowMs - now;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), limit };
    }
    log.times.push(now);
    this.logs.set(logKey, log);
    return { allowed: true };
  }

  /** Gives back the most recent slot of `subject` (for a request that turned out not to count). */
  release(subject: string, rateClass: RateClass): void {
    const log = this.logs.get(`${rateClass}:${subject}`);
    if (log && log.times.length > log.head) log.times.pop();
  }
}

/** Forgets times at or before `cutoff` by moving the head; compacts only when most of the array is dead. */
function dropBefore(log: RequestLog, cutoff: number): void {
  while (log.head < log.times.length && (log.times[log.head] ?? 0) <= cutoff) log.head++;
  if (log.head > 1024 && log.head * 2 > log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
}
