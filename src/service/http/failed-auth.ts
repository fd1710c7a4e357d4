/**
 * The failed-authentication guard: more than 30 missing or invalid keys from one address within a
 * rolling minute bans that address for 5 minutes. A valid request does not reset the count.
 */

/** Thresholds of the guard. */
export interface FailedAuthOptions {
  /** Failures tolerated per window; one more bans. @default 30 */
  maxFailures?: number;
  /** @default 60_000 */
  windowMs?: number;
  /** @default 300_000 */
  banMs?: number;
}

/** Tracks failures per client address and the bans they cause. */
export class FailedAuthGuard {
  private readonly failures = new Map<string, number[]>();
  private readonly bans = new Map<string, number>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly banMs: number;

  constructor(options: FailedAuthOptions = {}) {
    this.maxFailures = options.maxFailures ?? 30;
    this.windowMs = options.windowMs ?? 60_000;
    this.banMs = options.banMs ?? 300_000;
  }

  /** When the ban of `ip` ends, or null when it is not banned at `now`. */
  bannedUntil(ip: string, now: number): number | null {
    const until = this.bans.get(ip);
    if (until === undefined) return null;
    if (now < until) return until;
    this.bans.delete(ip);
    return null;
  }

  /** Records a failure; returns the end of the ban it triggers, or null. */
  recordFailure(ip: string, now: number): number | null {
    const log = (this.failures.get(ip) ?? []).filter((t) => t > now - this.windowMs);
    log.push(now);
    if (log.length <= this.maxFailures) {
      this.failures.set(ip, log);
      this.sweep(now);
      return null;
    }
    this.failures.delete(ip);
    const until = now + this.banMs;
    this.bans.set(ip, until);
    return until;
  }

  /** Forgets addresses whose failures have all aged out, so memory stays bounded. */
  private sweep(now: number): void {
    if (this.failures.size < 10_000) return;
    for (const [ip, log] of this.failures) {
      if ((log.at(-1) ?? 0) <= now - this.windowMs) this.failures.delete(ip);
    }
  }
}
