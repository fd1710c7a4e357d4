/** Per-key counting over a true rolling window (a log of accepted times, not fixed buckets), with eviction. */

/** Accepted times of one key, oldest first from `head`. */
interface TimeLog {
  times: number[];
  head: number;
}

/**
 * Counts accepted events per key over the last `windowMs` and grants at most `limit` of them; a
 * refused attempt does not count. A time `t` counts while `now < t + windowMs`. Keys whose window
 * has emptied are forgotten, so a map keyed by client address stays as large as the keys active
 * within one window, however many addresses have been seen.
 *
 * @example
 * const window = new RollingWindowCounter(100, 60_000);
 * if (!window.tryAcquire('key:abc', now)) retryIn(window.retryAfter('key:abc', now));
 */
export class RollingWindowCounter {
  /** Logs in the order their newest time was recorded, so the stalest come first for eviction. */
  private readonly logs = new Map<string, TimeLog>();

  constructor(
    /** Events granted per key and window. */
    readonly limit: number,
    /** Length of the window, in ms. */
    readonly windowMs: number,
  ) {}

  /** Keys held now: those with a time inside the window, plus stale ones not yet reached by eviction. */
  get size(): number {
    return this.logs.size;
  }

  /** Events of `key` counted in the window at `now`. */
  count(key: string, now: number): number {
    this.evict(now);
    const log = this.logs.get(key);
    if (!log) return 0;
    const counted = live(log, now - this.windowMs);
    if (counted === 0) this.logs.delete(key);
    return counted;
  }

  /**
   * Counts an event of `key` at `now` when fewer than `limit` are in the window (with `held` more
   * slots the caller holds outside it); returns false, counting nothing, when the window is full.
   */
  tryAcquire(key: string, now: number, held = 0): boolean {
    if (this.count(key, now) + held >= this.limit) return false;
    this.record(key, now);
    return true;
  }

  /** Counts an event of `key` at `now` whatever the limit (one that was sent without asking). */
  record(key: string, now: number): void {
    this.evict(now);
    const log = this.logs.get(key) ?? { times: [], head: 0 };
    log.times.push(now);
    // Only a clock that went back puts a time before the newest; keep the log sorted all the same.
    if ((log.times.at(-2) ?? now) > now) log.times.sort((a, b) => a - b);
    this.logs.delete(key);
    this.logs.set(key, log);
  }

  /**
   * Ms from `now` until `tryAcquire(key, …, held)` would succeed: 0 when it would now, Infinity
   * when time alone cannot free enough (the `held` slots must be given back first).
   */
  retryAfter(key: string, now: number, held = 0): number {
    const counted = this.count(key, now);
    const mustLeave = counted + held - this.limit + 1;
    if (mustLeave <= 0) return 0;
    const log = this.logs.get(key);
    const leaving = log && mustLeave <= counted ? log.times[log.head + mustLeave - 1] : undefined;
    return leaving === undefined ? Number.POSITIVE_INFINITY : leaving + this.windowMs - now;
  }

  /** Gives back the most recent event of `key` (one that turned out not to count). */
  release(key: string): void {
    const log = this.logs.get(key);
    if (!log || log.times.length <= log.head) return;
    log.times.pop();
    if (log.times.length <= log.head) this.logs.delete(key);
  }

  /** Forgets every event of `key`. */
  delete(key: string): void {
    this.logs.delete(key);
  }

  /** Drops the logs at the front whose newest time has left the window. */
  private evict(now: number): void {
    const cutoff = now - this.windowMs;
    for (const [key, log] of this.logs) {
      if ((log.times.at(-1) ?? cutoff) > cutoff) return;
      this.logs.delete(key);
    }
  }
}

/** Moves the head past times at or before `cutoff` and returns how many remain; compacts when most are dead. */
function live(log: TimeLog, cutoff: number): number {
  while (log.head < log.times.length && (log.times[log.head] ?? 0) <= cutoff) log.head++;
  if (log.head > 1024 && log.head * 2 > log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
  return log.times.length - log.head;
}
