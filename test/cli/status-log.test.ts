/**
 * The collector's status in its log: a JSON line of a few hundred bytes at start, then only when a
 * source changes state or after `--status-seconds`; a warning naming each source that turns stale,
 * with what to do, and a line when it is fresh again.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logStatus } from '../../src/cli/status-log.js';
import { type Freshness, freshnessOf } from '../../src/collector/freshness.js';
import type { SourceStatus } from '../../src/collector/source-status.js';

const THRESHOLDS = { warnSeconds: 60, errorSeconds: 300 };
const ok: Freshness = freshnessOf(THRESHOLDS, 0, 0, 1000);
const stale: Freshness = freshnessOf(THRESHOLDS, 0, 0, 75_000);

const source = (name: string, freshness?: Freshness): SourceStatus => ({
  name,
  connected: true,
  received: 100,
  landed: 100,
  lagSeconds: name === 'stream' ? 0.4 : null,
  lastError: null,
  lastErrorAt: null,
  stopped: null,
  ...(freshness ? { freshness } : {}),
});

/** A logger writing JSON lines into `lines`. */
function capture(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push({ ...JSON.parse(line), bytes: line.length });
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the status in the log', () => {
  it('is written at start, on a change and every --status-seconds, a few hundred bytes each', async () => {
    const names = [
      'stream',
      'poll:730',
      'sweep:730',
      'sweep:570',
      'sweep:252490',
      'prices:730',
      'prices:570',
      'prices:252490',
      'fx',
      'account',
      'snapshot',
    ];
    let boards = names.map((n) => source(n, ok)).concat([source('models')]);
    const lines: Record<string, unknown>[] = [];
    const stop = logStatus(capture(lines), 300, () => boards, 5_000);
    try {
      await vi.advanceTimersByTimeAsync(60_000);
      const statusLines = () => lines.filter((l) => l.msg === 'status');
      expect(statusLines()).toHaveLength(1);
      expect(statusLines()[0]).toMatchObject({ status: { landed: 1100, feeds: 11, streamLagSeconds: 0.4 } });
      expect(statusLines()[0]?.bytes).toBeLessThan(400);

      boards = boards.map((b) =>
        b.name === 'poll:730' ? { ...b, lastError: 'connect ECONNREFUSED', freshness: stale } : b,
      );
      await vi.advanceTimersByTimeAsync(5_000);
      expect(statusLines()).toHaveLength(2);
      expect(statusLines()[1]).toMatchObject({ status: { warn: ['poll:730 (75s)'] } });
      const warning = lines.find((l) => l.level === 40);
      expect(warning).toMatchObject({ source: 'poll:730', state: 'warn' });
      expect(String(warning?.msg)).toMatch(
        /^poll:730 has not succeeded for 75s, past its warn age of 60s \(last error: connect ECONNREFUSED\): check that the API answers/,
      );

      await vi.advanceTimersByTimeAsync(290_000);
      expect(statusLines()).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(statusLines()).toHaveLength(3);

      boards = boards.map((b) => (b.name === 'poll:730' ? { ...b, freshness: ok } : b));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(statusLines()).toHaveLength(4);
      expect(lines.some((l) => l.msg === 'poll:730 is fresh again')).toBe(true);
    } finally {
      stop();
    }
  });
});
