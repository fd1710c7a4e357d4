import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CronScheduler, type FailureKind, startJob } from '../../../src/shared/jobs/index.js';

/** A run that stays in progress until `finish` is called. */
function deferred() {
  let finish: (value?: number) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const promise = new Promise<number>((resolve, reject) => {
    finish = (value = 0) => resolve(value);
    fail = reject;
  });
  return { promise, finish, fail };
}

/** A cron scheduler whose ticks the test fires by hand. */
function manualCron() {
  const state = { tick: (): Promise<void> => Promise.resolve(), stopped: false, expression: '' };
  const scheduler: CronScheduler = (expression, tick) => {
    state.expression = expression;
    state.tick = tick;
    return {
      stop() {
        state.stopped = true;
      },
    };
  };
  return { state, scheduler };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('startJob on an interval', () => {
  it('waits the interval before the first run unless runAtStart, then runs after each end', async () => {
    const run = vi.fn(async () => 1);
    const job = startJob({ name: 'prices', everyMs: 60_000, run });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(run).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run).toHaveBeenCalledTimes(2);
    expect(job.status()).toMatchObject({ name: 'prices', runs: 2, running: false, lastError: null });
    await job.stop();
  });

  it('counts the interval from the end of a slow run, never overlapping it', async () => {
    let current = deferred();
    const run = vi.fn(() => current.promise);
    const job = startJob({ name: 'slow', everyMs: 1000, run, runAtStart: true });
    expect(run).toHaveBeenCalledTimes(1);
    expect(job.status().running).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(run).toHaveBeenCalledTimes(1);
    const first = current;
    current = deferred();
    first.finish();
    await vi.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    current.finish();
    await job.stop();
  });

  it('reports each result and logs failures, going on at the regular pace by default', async () => {
    const results: number[] = [];
    const errors: [string, FailureKind][] = [];
    let calls = 0;
    const job = startJob({
      name: 'flaky',
      everyMs: 1000,
      runAtStart: true,
      async run() {
        calls += 1;
        if (calls === 2) throw new Error('boom');
        return calls;
      },
      onSuccess: (rows) => results.push(rows),
      onError: (error, kind) => errors.push([(error as Error).message, kind]),
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(errors).toEqual([['boom', 'retry']]);
    expect(job.status()).toMatchObject({ lastError: 'boom', consecutiveFailures: 0, runs: 3 });
    expect(job.status().lastErrorAt).not.toBeNull();
    expect(results).toEqual([1, 3]);
    await job.stop();
  });

  it('retries a transient failure after a growing backoff, and resets it after a success', async () => {
    const starts: number[] = [];
    let failuresLeft = 3;
    const job = startJob({
      name: 'feed',
      everyMs: 60_000,
      runAtStart: true,
      backoff: { baseMs: 100, capMs: 10_000, random: () => 0.999 },
      classify: () => 'transient',
      async run() {
        starts.push(Date.now());
        if (failuresLeft-- > 0) throw new Error('503');
        return 0;
      },
    });
    await vi.advanceTimersByTimeAsync(1000);
    const gaps = starts.slice(1).map((at, i) => at - (starts[i] ?? 0));
    expect(gaps).toEqual([99, 199, 399]);
    expect(job.status().consecutiveFailures).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(starts).toHaveLength(5);
    await job.stop();
  });

  it('stops for good on a terminal failure and says why', async () => {
    const run = vi.fn(async () => {
      throw new Error('invalid_api_key: the key is revoked');
    });
    const job = startJob({ name: 'sweep', everyMs: 1000, runAtStart: true, run, classify: () => 'terminal' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run).toHaveBeenCalledTimes(1);
    expect(job.status().stopped).toBe('invalid_api_key: the key is revoked');
    await job.trigger();
    expect(run).toHaveBeenCalledTimes(1);
    await job.stop();
  });
});

describe('stopping a job', () => {
  it('waits for the run in progress, aborts its signal and starts no other', async () => {
    const current = deferred();
    let signal: AbortSignal | null = null;
    const run = vi.fn((s: AbortSignal) => {
      signal = s;
      return current.promise;
    });
    const errors: unknown[] = [];
    const job = startJob({
      name: 'drain',
      everyMs: 10,
      runAtStart: true,
      run,
      onError: (e) => errors.push(e),
    });
    let stopped = false;
    const stopping = job.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    expect((signal as AbortSignal | null)?.aborted).toBe(true);
    current.fail(new Error('aborted'));
    await stopping;
    expect(stopped).toBe(true);
    expect(errors).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});

describe('startJob on a cron schedule', () => {
  it('runs on each tick, skips a tick while a run is in progress, and unschedules on stop', async () => {
    const cron = manualCron();
    let current = deferred();
    const run = vi.fn(() => current.promise);
    const landed: number[] = [];
    const job = startJob({
      name: 'models',
      cron: '* * * * *',
      run,
      cronScheduler: cron.scheduler,
      onSuccess: (rows) => landed.push(rows),
    });
    expect(cron.state.expression).toBe('* * * * *');
    expect(run).toHaveBeenCalledTimes(0);
    const first = cron.state.tick();
    void cron.state.tick();
    expect(run).toHaveBeenCalledTimes(1);
    const running = current;
    current = deferred();
    running.finish(7);
    await first;
    expect(landed).toEqual([7]);
    void cron.state.tick();
    expect(run).toHaveBeenCalledTimes(2);
    current.finish(1);
    await job.stop();
    expect(cron.state.stopped).toBe(true);
  });

  it('retries a transient failure before the next tick', async () => {
    const cron = manualCron();
    let calls = 0;
    const job = startJob({
      name: 'snapshot',
      cron: '* * * * *',
      runAtStart: true,
      cronScheduler: cron.scheduler,
      backoff: { baseMs: 500, random: () => 0.5 },
      classify: () => 'transient',
      async run() {
        calls += 1;
        if (calls === 1) throw new Error('503');
        return 0;
      },
    });
    await vi.advanceTimersByTimeAsync(249);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(calls).toBe(2);
    await job.stop();
  });

  it('refuses an expression node-cron does not accept', () => {
    expect(() => startJob({ name: 'bad', cron: 'every hour', run: async () => 0 })).toThrow(
      /"every hour" is not a cron expression/,
    );
  });

  it('refuses a job with both an interval and a cron expression', () => {
    expect(() => startJob({ name: 'both', cron: '* * * * *', everyMs: 10, run: async () => 0 })).toThrow(
      /everyMs or cron/,
    );
  });
});
