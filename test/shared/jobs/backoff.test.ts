/** The one backoff formula: full jitter under a doubling, capped ceiling, for the jobs and the client alike. */
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../../src/client/retry-policy.js';
import { Backoff, backoffWaitMs } from '../../../src/shared/jobs/backoff.js';

const top = () => 0.999_999;

describe('backoffWaitMs', () => {
  it.each([
    [0, 499],
    [1, 999],
    [2, 1999],
    [5, 15_999],
    [6, 29_999],
    [40, 29_999],
    [Number.MAX_SAFE_INTEGER, 29_999],
  ])('after %i failures waits at most %i ms (base 500, cap 30 s)', (failures, most) => {
    expect(backoffWaitMs(failures, { baseMs: 500, capMs: 30_000, random: top })).toBe(most);
    expect(backoffWaitMs(failures, { baseMs: 500, capMs: 30_000, random: () => 0 })).toBe(0);
  });

  it('uses a base of 1 s and a cap of 60 s when none is given', () => {
    expect(backoffWaitMs(0, { random: top })).toBe(999);
    expect(backoffWaitMs(10, { random: top })).toBe(59_999);
  });

  it('spreads the wait uniformly under the ceiling', () => {
    expect(backoffWaitMs(3, { baseMs: 100, capMs: 10_000, random: () => 0.5 })).toBe(400);
  });
});

describe('Backoff', () => {
  it('walks the formula one failure at a time and starts again after a reset', () => {
    const backoff = new Backoff({ baseMs: 100, capMs: 1000, random: top });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([
      99, 199, 399, 799, 999,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(99);
  });
});

describe("the client's backoffMs", () => {
  it('is the same formula with the client retry defaults (500 ms base, 30 s cap)', () => {
    for (const attempt of [0, 1, 3, 6, 12])
      expect(backoffMs(attempt, top)).toBe(
        backoffWaitMs(attempt, { baseMs: 500, capMs: 30_000, random: top }),
      );
    expect(backoffMs(2, top, 100, 250)).toBe(249);
  });
});
