/**
 * A client-side rolling-window limiter: the send times of the last requests, not fixed buckets.
 * A request holds its slot while in flight and is stamped when its answer arrives, which is never
 * earlier than the server's own stamp, so the server's window always frees first.
 */
import { RollingWindowCounter } from '../shared/rolling-window.js';
import { untilAborted } from './abortable.js';
import type { ClientClock, Sleep } from './client-options.js';

/** The one key of the counter: a window counts the requests of one budget. */
const REQUESTS = 'requests';

/** One taken slot of a {@link RollingWindow}. */
export interface WindowSlot {
  /** Counts the request in the window, stamped now (call once its answer has arrived). */
  settle(): void;
  /** Gives the slot back because the server did not count the request. */
  release(): void;
}

/**
 * At most `limit` requests per `windowMs`, granted first come, first served, except that a request
 * asked `first` is granted before every other one still waiting.
 */
export class RollingWindow {
  private readonly stamps: RollingWindowCounter;
  private inFlight = 0;
  private pausedUntil = 0;
  private turn: Promise<unknown> = Promise.resolve();
  private waiters: Array<() => void> = [];
  /** The line of the requests asked `first`, how many wait in it, and who waits for it to empty. */
  private firstTurn: Promise<unknown> = Promise.resolve();
  private firstWaiting = 0;
  private firstGone: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: ClientClock,
    private readonly sleep: Sleep,
  ) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('a budget needs limit >= 1 and windowMs > 0');
    this.stamps = new RollingWindowCounter(limit, windowMs);
  }

  /**
   * Waits until the window has room (and any pause is over), then takes a slot; with `first`, ahead
   * of every request not asked `first`. When `signal` aborts, the wait ends at once (rejecting with
   * its reason) and no slot is taken for it.
   */
  acquire(signal?: AbortSignal, first = false): Promise<WindowSlot> {
    if (!first) {
      const slot = this.turn.then(() => this.waitForRoom(signal, false));
      this.turn = slot.catch(() => undefined);
      return untilAborted(slot, signal, (late) => late.release());
    }
    this.firstWaiting++;
    const slot = this.firstTurn
      .then(() => this.waitForRoom(signal, true))
      .finally(() => {
        this.firstWaiting--;
        if (this.firstWaiting === 0) for (const wake of this.firstGone.splice(0)) wake();
      });
    this.firstTurn = slot.catch(() => undefined);
    return untilAborted(slot, signal, (late) => late.release());
  }

  /** Counts a request that was sent without waiting (a conditional snapshot that came back 200). */
  record(): void {
    this.stamps.record(REQUESTS, this.clock.now());
  }

  /** Holds every new slot until `untilMs` (the server said Retry-After). */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Requests counted in the window now, in flight included. */
  used(): number {
    return this.inFlight + this.stamps.count(REQUESTS, this.clock.now());
  }

  private async waitForRoom(signal: AbortSignal | undefined, first: boolean): Promise<WindowSlot> {
    for (;;) {
      signal?.throwIfAborted();
      if (!first && this.firstWaiting > 0) {
        await untilAborted(new Promise<void>((resolve) => this.firstGone.push(resolve)), signal);
        continue;
      }
      const now = this.clock.now();
      if (now < this.pausedUntil) {
        await untilAborted(this.sleep(this.pausedUntil - now, signal), signal);
        continue;
      }
      // In-flight slots count against the window and free only once stamped or released.
      const waitMs = this.stamps.retryAfter(REQUESTS, now, this.inFlight);
      if (waitMs === 0) return this.take();
      if (waitMs === Number.POSITIVE_INFINITY)
        await untilAborted(new Promise<void>((resolve) => this.waiters.push(resolve)), signal);
      else await untilAborted(this.sleep(waitMs, signal), signal);
    }
  }

  private take(): WindowSlot {
    this.inFlight++;
    let done = false;
    const finish = (stamp: boolean) => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (stamp) this.stamps.record(REQUESTS, this.clock.now());
      for (const wake of this.waiters.splice(0)) wake();
    };
    return { settle: () => finish(true), release: () => finish(false) };
  }
}
