/**
 * Slow clients against the commands as users run them, with their default deadlines (no option
 * shortens them): a request whose headers or body trickle in, a byte every 2 s, from a client that
 * goes on sending after the server ends its side, is cut and answered 400 invalid_request by
 * `market serve`, by `market run` and by the collector's control endpoint `market run` starts. The
 * slowest test of the suite (the deadlines are 30 s and 45 s): it starts first.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import { spawnMarket, waitForLine } from '../helpers/cli.js';
import { trickle } from '../helpers/trickle.js';

/** A byte every 2 s: a request of 4,000 body bytes or 100 header lines never arrives whole. */
const EVERY_MS = 2_000;
/** Past both default deadlines and their checking interval (30 s, 45 s), within the test's timeout. */
const GIVE_UP_MS = 70_000;
const TIMED_OUT =
  /^HTTP\/1.1 400 [\s\S]*"code":"invalid_request","detail":"the request did not arrive in time/;

let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-slow-'));
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Headers that trickle in after the request line, and a body that does to a route that reads it. */
function trickleBoth(port: number, extraHeaders: string, body: { path: string; type: string }) {
  const host = `Host: 127.0.0.1:${port}\r\n${extraHeaders}`;
  return Promise.all([
    trickle(port, `GET /v1/listings HTTP/1.1\r\n${host}`, 'X-Slow: 1\r\n'.repeat(100), {
      everyMs: EVERY_MS,
      giveUpMs: GIVE_UP_MS,
    }),
    trickle(
      port,
      `POST ${body.path} HTTP/1.1\r\n${host}content-type: ${body.type}\r\ncontent-length: 4000\r\n\r\n`,
      'x'.repeat(4000),
      { everyMs: EVERY_MS, giveUpMs: GIVE_UP_MS },
    ),
  ]);
}

describe('slow clients of the commands, at their default deadlines', () => {
  it('are cut by market serve, market run and the control endpoint of its collector', async () => {
    const serve = spawnMarket([
      'serve',
      ...['--port', '0', '--db', join(dir, 'serve.duckdb'), '--listings', '200', '--sandbox'],
    ]);
    const warehouse = join(dir, 'warehouse.duckdb');
    const run = spawnMarket([
      'run',
      ...['--port', '0', '--db', join(dir, 'run.duckdb'), '--warehouse', warehouse, '--listings', '200'],
    ]);
    children.push(serve, run);
    let printed = '';
    run.stdout?.on('data', (d) => {
      printed += d;
    });
    const [served] = await Promise.all([
      waitForLine(serve, /^http:\/\/127\.0\.0\.1:\d+\/v1$/),
      waitForLine(run, /^stop with Ctrl-C/),
    ]);
    const ran = /^http:\/\/127\.0\.0\.1:\d+\/v1$/m.exec(printed)?.[0] ?? '';
    const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as ControlFile;

    const accounts = { path: '/sandbox/accounts', type: 'application/json' };
    const outcomes = await Promise.all([
      trickleBoth(Number(new URL(served).port), '', accounts),
      trickleBoth(Number(new URL(ran).port), '', accounts),
      trickleBoth(control.port, `Authorization: Bearer ${control.token}\r\n`, {
        path: '/sql',
        type: 'text/plain',
      }),
    ]);
    for (const outcome of outcomes.flat()) {
      expect(outcome.closedByServer).toBe(true);
      expect(outcome.received).toMatch(TIMED_OUT);
    }
  }, 120_000);
});
