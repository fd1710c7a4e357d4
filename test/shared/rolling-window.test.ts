import { describe, expect, it } from 'vitest';
import { RollingWindowCounter } from '../../src/shared/rolling-window.js';

describe('RollingWindowCounter', () => {
  it('grants the limit, then frees each slot exactly one window after its own time', () => {
    const window = new RollingWindowCounter(3, 1000);
    expect([100, 200, 300].map((t) => window.tryAcquire('a', t))).toEqual([true, true, true]);
    expect(window.tryAcquire('a', 400)).toBe(false);
    expect(window.retryAfter('a', 400)).toBe(700);
    expect(window.tryAcquire('a', 1099)).toBe(false);
    // A rolling window frees the first slot at 1100, not at a bucket edge.
    expect(window.tryAcquire('a', 1100)).toBe(true);
    expect(window.tryAcquire('a', 1100)).toBe(false);
    expect(window.retryAfter('a', 1100)).toBe(100);
    expect(window.count('a', 1300)).toBe(1);
  });

  it('does not count refused attempts', () => {
    const window = new RollingWindowCounter(2, 1000);
    window.tryAcquire('a', 0);
    window.tryAcquire('a', 10);
    for (let t = 20; t < 1000; t += 10) expect(window.tryAcquire('a', t)).toBe(false);
    expect(window.count('a', 999)).toBe(2);
    expect(window.tryAcquire('a', 1000)).toBe(true);
  });

  it('keeps keys apart', () => {
    const window = new RollingWindowCounter(1, 1000);
    expect(window.tryAcquire('a', 0)).toBe(true);
    expect(window.tryAcquire('b', 0)).toBe(true);
    expect(window.tryAcquire('a', 1)).toBe(false);
  });

  it('says when held slots must be given back first, and how long time alone takes otherwise', () => {
    const window = new RollingWindowCounter(2, 1000);
    window.record('a', 0);
    expect(window.retryAfter('a', 500, 0)).toBe(0);
    expect(window.retryAfter('a', 500, 1)).toBe(500);
    expect(window.retryAfter('a', 500, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(window.tryAcquire('a', 500, 1)).toBe(false);
  });

  it('counts recorded events beyond the limit and waits for enough of them to leave', () => {
    const window = new RollingWindowCounter(1, 1000);
    window.record('a', 0);
    window.record('a', 100);
    expect(window.count('a', 100)).toBe(2);
    expect(window.retryAfter('a', 100)).toBe(1000);
  });

  it('gives back the most recent event on release', () => {
    const window = new RollingWindowCounter(2, 1000);
    window.tryAcquire('a', 0);
    window.tryAcquire('a', 500);
    window.release('a');
    expect(window.count('a', 600)).toBe(1);
    expect(window.retryAfter('a', 600)).toBe(0);
    window.release('a');
    expect(window.size).toBe(0);
  });

  it('forgets keys whose window has passed: 100,000 addresses leave the map empty', () => {
    const window = new RollingWindowCounter(100, 60_000);
    // Ten new addresses a millisecond: all 100,000 inside one minute.
    for (let i = 0; i < 100_000; i++)
      window.tryAcquire(`ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, i / 10);
    expect(window.size).toBe(100_000);
    window.tryAcquire('ip:late', 10_000 + 60_000);
    expect(window.size).toBe(1);
  });

  it('stays bounded by the keys active within one window under steady traffic from new addresses', () => {
    const window = new RollingWindowCounter(100, 1000);
    let largest = 0;
    // One new address a millisecond for 100 seconds: about 1,000 live at any time.
    for (let t = 0; t < 100_000; t++) {
      window.tryAcquire(`ip:${t}`, t);
      largest = Math.max(largest, window.size);
    }
    expect(largest).toBeLessThanOrEqual(1001);
  });

  it('forgets a key as soon as its own window is found empty', () => {
    const window = new RollingWindowCounter(5, 1000);
    window.tryAcquire('a', 0);
    window.tryAcquire('b', 900);
    expect(window.count('a', 1000)).toBe(0);
    expect(window.size).toBe(1);
  });
});
