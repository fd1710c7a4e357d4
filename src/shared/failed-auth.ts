/**
 * The failed-authentication guard: more than 30 missing or invalid keys from one address within a
 * rolling minute bans that address for 5 minutes. A valid request does not reset the count.
 */
import { RollingWindowCounter } from './rolling-window.js';

/** Thresholds of the guard. */
export interface FailedAuthOptions {
  /** Failures tolerated per window; one more bans. @default 30 */
  maxFailures?: number;
  /** @default 60_000 */
  windowMs?: number;
  /** @default 300_000 */
  banMs?: number;
}

/** Tracks failures per client address and the bans they cause; both forget addresses once they lapse. */
export class FailedAuthGuard {
  private readonly failures: RollingWindowCounter;
  /** Ban ends per address, in the order the bans began (so the earliest to end come first). */
  private readonly bans = new Map<string, number>();
  private readonly banMs: number;

  constructor(options: FailedAuthOptions = {}) {
    this.failures = new RollingWindowCounter(options.maxFailures ?? 30, options.windowMs ?? 60_000);
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
    this.forgetEndedBans(now);
    if (this.failures.tryAcquire(ip, now)) return null;
    this.failures.delete(ip);
    const until = now + this.banMs;
    this.bans.delete(ip);
    this.bans.set(ip, until);
    return until;
  }

  /** Addresses tracked, failing or banned (bounded by those active within a window or a ban). */
  get size(): number {
    return this.failures.size + this.bans.size;
  }

  private forgetEndedBans(now: number): void {
    for (const [ip, until] of this.bans) {
      if (until > now) return;
      this.bans.delete(ip);
    }
  }
}
