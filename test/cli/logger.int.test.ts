import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, summarizeStatus } from '../../src/cli/logger.js';
import type { SourceStatus } from '../../src/collector/source-status.js';

const source = (name: string, landed: number, extra: Partial<SourceStatus> = {}): SourceStatus => ({
  name,
  connected: true,
  received: landed,
  landed,
  lagSeconds: null,
  lastError: null,
  lastErrorAt: null,
  stopped: null,
  ...extra,
});

const sources = [
  source('stream', 4007, { lagSeconds: 0.4 }),
  source('sweep:730', 25),
  source('fx', 20, { connected: false, stopped: 'key revoked' }),
  source('models', 9000),
];

/** What the logger wrote to stderr while `log` ran, with stderr's TTY flag set to `tty`. */
function stderrOf(tty: boolean, log: () => void): string {
  const writes: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    writes.push(String(chunk));
    return true;
  });
  const was = process.stderr.isTTY;
  process.stderr.isTTY = tty;
  try {
    log();
  } finally {
    process.stderr.isTTY = was;
    spy.mockRestore();
  }
  return writes.join('');
}

afterEach(() => vi.restoreAllMocks());

describe('the daemon logger', () => {
  it('writes the status as one short line on a terminal', () => {
    const out = stderrOf(true, () => createLogger('collector', 'info', 'auto').info({ sources }, 'status'));
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d collector: status: 4052 rows landed from 3 sources, stream lag 0\.4s; down: fx \(details: market status\)\n$/,
    );
  });

  it('writes JSON when stderr is not a terminal, or when json is asked for', () => {
    for (const [tty, format] of [
      [false, 'auto'],
      [true, 'json'],
    ] as const) {
      const out = stderrOf(tty, () => createLogger('collector', 'info', format).info({ sources }, 'status'));
      expect(JSON.parse(out)).toMatchObject({ name: 'collector', msg: 'status', sources });
    }
  });

  it('writes warnings with their level and error message as text', () => {
    const out = stderrOf(true, () =>
      createLogger('collector', 'info', 'text').warn({ err: new Error('connection refused') }, 'fx failed'),
    );
    expect(out).toMatch(/^\d\d:\d\d:\d\d warn collector: fx failed: connection refused\n$/);
  });

  it('writes the status summary as one line naming the sources in trouble', () => {
    const status = { landed: 4052, feeds: 3, streamLagSeconds: 0.4, down: ['fx'], warn: ['poll:730 (75s)'] };
    const out = stderrOf(true, () => createLogger('collector', 'info', 'text').info({ status }, 'status'));
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d collector: status: 4052 rows landed from 3 sources, stream lag 0\.4s; down: fx; stale: poll:730 \(75s\) \(details: market status\)\n$/,
    );
  });

  it('says all sources run when none is down', () => {
    expect(summarizeStatus([source('stream', 3)])).toBe(
      'status: 3 rows landed from 1 sources; all running (details: market status)',
    );
  });
});
