/**
 * A sweep's first full read of its game on an empty warehouse, seen through `market status`: while
 * it runs, the sweep's line says "first pass: page n of m" (m from the game's minAsk list); once it
 * has completed, the line no longer does. A proxy holds one page of the read, so the test sees the
 * pass stand still at a known page rather than racing it.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { runMarket } from '../helpers/cli.js';
import { startTestCollector } from '../helpers/collector.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';

const CS2 = 730;

let t: TestService;
let proxy: Server;
let collector: RunningCollector | undefined;
/** Sweep pages (requests with a cursor) the proxy let through, and the release of the one it holds. */
const pages = { passed: 0, release: null as (() => void) | null };
/** The sweep page the proxy holds: the third (two pages after the first have a cursor). */
const HELD_CURSOR_PAGE = 2;

beforeAll(async () => {
  t = await startTestService({ listings: 1000 });
  const target = new URL(t.origin);
  proxy = createServer((req, res) => {
    const forward = () =>
      req.pipe(
        request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        ).on('error', () => res.destroy()),
      );
    const url = req.url ?? '';
    const sweepPage = url.startsWith('/v1/listings?') && url.includes('limit=200') && url.includes('cursor=');
    if (!sweepPage) return forward();
    pages.passed += 1;
    if (pages.passed !== HELD_CURSOR_PAGE) return forward();
    pages.release = () => {
      pages.release = null;
      forward();
    };
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
});
afterAll(async () => {
  pages.release?.();
  await collector?.stop();
  proxy?.close();
  await t?.close();
});

/** The `sweep:730` line of `market status`. */
async function sweepLine(): Promise<string> {
  const status = await runMarket(['status', '--warehouse', collector?.warehouse.path ?? '']);
  return status.stdout.split('\n').find((line) => line.startsWith(`sweep:${CS2}`)) ?? status.stderr;
}

describe('the first pass of a sweep in market status', () => {
  it('says "first pass: page n of m" while it runs, and nothing once it completed', async () => {
    const { key } = await t.account({ balance_usd: 10 });
    const listings = (await readAllListings(t, key, `&appId=${CS2}`)).length;
    const { port } = proxy.address() as AddressInfo;
    collector = await startTestCollector(t, key, {
      api: { baseUrl: `http://127.0.0.1:${port}/v1` },
      sources: { games: [CS2], account: false, cs2SweepIntervalMs: 600_000 },
    });
    // Held at its third page, the pass has read two, and the minAsk list tells how many it has.
    await expect
      .poll(sweepLine, { timeout: 30_000, interval: 250 })
      .toMatch(`(first pass: page ${HELD_CURSOR_PAGE} of ${Math.ceil(listings / 200)})`);
    pages.release?.();
    await expect.poll(sweepLine, { timeout: 30_000, interval: 250 }).not.toMatch(/first pass/);
    expect(await sweepLine()).toMatch(/^sweep:730\s+connected/);
  });
});
