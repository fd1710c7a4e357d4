/** The one source of time in the service: real time plus an offset the sandbox can advance. */

/** Tells the time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** A clock that the sandbox operator (and tests) can move forward. */
export interface AdjustableClock extends Clock {
  /** Moves the clock forward by `ms` milliseconds; negative values are refused. */
  advance(ms: number): void;
  /** How far the clock runs ahead of real time, in milliseconds. */
  readonly offsetMs: number;
}

/**
 * Creates a clock that follows real time shifted by an offset.
 * @example const clock = createClock(); clock.advance(8 * 86_400_000); // eight days later
 */
export function createClock(options: { start?: number; realNow?: () => number } = {}): AdjustableClock {
  const realNow = options.realNow ?? Date.now;
  let offsetMs = options.start === undefined ? 0 : options.start - realNow();
  return {
    now: () => realNow() + offsetMs,
    advance(ms: number) {
      if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
      offsetMs += ms;
    },
    get offsetMs() {
      return offsetMs;
    },
  };
}
