/**
 * A client-side rolling-window limiter: the send times of the last requests, not fixed buckets.
 * A request holds its slot while in flight and is stamped when its answer arrives, which is never
 * earlier than the server's own stamp, so the server's window always frees first.
 */
import type { ClientClock, Sleep } from './client-options.js';

/** One taken slot of a {@link RollingWindow}. */
export interface WindowSlot {
  /** Counts the request in the window, stamped now (call once its answer has arrived). */
  settle(): void;
  /** Gives the slot back because the server did not count the request. */
  release(): void;
}

/** At most `limit` requests per `windowMs`, granted first come, first served. */
export class RollingWindow {
  private stamps: number[] = [];
  private inFlight = 0;
  private pausedUntil = 0;
  private turn: Promise<unknown> = Promise.resolve();
  private waiters: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: ClientClock,
    private readonly sleep: Sleep,
  ) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('a budget needs limit >= 1 and windowMs > 0');
  }

  /** Waits until the window has room (and any pause is over), then takes a slot. */
  acquire(): Promise<WindowSlot> {
    const slot = this.turn.then(() => this.waitForRoom());
    this.turn = slot.catch(() => undefined);
    return slot;
  }

  /** Counts a request that was sent without waiting (a conditional snapshot that came back 200). */
  record(): void {
    this.stamps.push(this.clock.now());
  }

  /** Holds every new slot until `untilMs` (the server said Retry-After). */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Requests counted in the window now, in flight included. */
  used(): number {
    this.expire(this.clock.now());
    return this.inFlight + this.stamps.length;
  }

  private async waitForRoom(): Promise<WindowSlot> {
    for (;;) {
      const now = this.clock.now();
      this.expire(now);
      if (now < this.pausedUntil) {
        await this.sleep(this.pausedUntil - now);
        continue;
      }
      if (this.inFlight + this.stamps.length < this.limit) return this.take();
      // The window frees when enough stamps age out; in-flight slots free only once stamped.
      const mustExpire = this.inFlight + this.stamps.length - this.limit + 1;
      const sorted = [...this.stamps].sort((a, b) => a - b);
      const stamp = sorted[mustExpire - 1];
      if (stamp === undefined) await new Promise<void>((resolve) => this.waiters.push(resolve));
      else await this.sleep(Math.max(0, stamp + this.windowMs - now));
    }
  }

  private take(): WindowSlot {
    this.inFlight++;
    let done = false;
    const finish = (stamp: boolean) => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (stamp) this.stamps.push(this.clock.now());
      for (const wake of this.waiters.splice(0)) wake();
    };
    return { settle: () => finish(true), release: () => finish(false) };
  }

  private expire(now: number): void {
    const cutoff = now - this.windowMs;
    if (this.stamps.some((s) => s <= cutoff)) this.stamps = this.stamps.filter((s) => s > cutoff);
  }
}
