/** The node-cron scheduler: a slow tick skips the next ones quietly, as the collector expects. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nodeCronScheduler } from '../../../src/shared/jobs/cron-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-11-01T00:00:00.500Z') });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('nodeCronScheduler', () => {
  it('skips the ticks that come while one is still running, and prints nothing about them', async () => {
    const printed = [
      vi.spyOn(console, 'warn').mockImplementation(() => undefined),
      vi.spyOn(console, 'info').mockImplementation(() => undefined),
      vi.spyOn(console, 'error').mockImplementation(() => undefined),
    ];
    let ticks = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const schedule = nodeCronScheduler('* * * * * *', () => {
      ticks++;
      return held;
    });
    try {
      // Five occurrences while the first tick is pending: a loaded machine's slow model refresh.
      await vi.advanceTimersByTimeAsync(5_000);
      expect(ticks).toBe(1);
      release();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(ticks).toBe(2);
    } finally {
      await schedule.stop();
    }
    expect(printed.flatMap((spy) => spy.mock.calls)).toEqual([]);
  });
});
