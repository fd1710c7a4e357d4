/**
 * `market collect --control-port --metrics-token-file`: a control endpoint a scraper finds at the
 * same port with the same token across restarts, whose lasting token opens `GET /metrics` alone;
 * a port in use and a missing or empty token file are refused at start in one line, exit 2.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import { runMarket, spawnCollector } from '../helpers/cli.js';
import { freePort, stopChild } from '../helpers/crash.js';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let key: string;
let tokenFile: string;
/** The lasting token, written with a newline and spaces around it as an editor might leave it. */
const metricsToken = randomBytes(24).toString('base64url');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await startTestService({ listings: 200, rateLimits: { read: 1_000_000 } });
  ({ key } = await t.account({ balance_usd: 10 }));
  tokenFile = join(t.dir, 'metrics-token');
  await writeFile(tokenFile, `  ${metricsToken}\n`, { mode: 0o600 });
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t?.close();
});

/** `market collect` on `warehouse` with the lasting control endpoint flags. */
function collect(warehouse: string, port: number): ChildProcess {
  const child = spawnCollector(t.baseUrl, key, warehouse, [
    ...['--games', '570', '--models-cron', 'off'],
    ...['--control-port', String(port), '--metrics-token-file', tokenFile],
  ]);
  children.add(child);
  return child;
}

/** The control file of the collector running on `warehouse`, once it is written. */
async function controlFile(warehouse: string): Promise<ControlFile> {
  const text = await vi.waitFor(
    async () => {
      const read = await readFile(controlFileOf(warehouse), 'utf8');
      expect(read).not.toBe('');
      return read;
    },
    { timeout: 30_000, interval: 200 },
  );
  return JSON.parse(text) as ControlFile;
}

/** A request to the control endpoint at `port` with `token` as its bearer. */
async function call(port: number, path: string, token: string, init: RequestInit = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
  return { status: response.status, text: await response.text() };
}

/** `POST /sql` of a harmless query. */
const sql = { method: 'POST', body: 'SELECT 1 AS one', headers: { 'content-type': 'text/plain' } };

describe('a control endpoint that outlives restarts', () => {
  it('answers /metrics at the fixed port with the lasting token, before and after a restart', async () => {
    const warehouse = join(t.dir, 'kept.duckdb');
    const port = await freePort();
    const first = collect(warehouse, port);
    const firstRun = await controlFile(warehouse);
    expect(firstRun.port).toBe(port);
    const scraped = await call(port, '/metrics', metricsToken);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toMatch(/^market_collector_warehouse_bytes [1-9]/m);
    // The lasting token opens /metrics alone; the run's token still opens everything.
    const refused = await call(port, '/sql', metricsToken, sql);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({ code: 'unauthorized', detail: expect.any(String) });
    expect((await call(port, '/status', metricsToken)).status).toBe(401);
    expect((await call(port, '/sql', firstRun.token, sql)).status).toBe(200);
    expect((await call(port, '/metrics', firstRun.token)).status).toBe(200);
    expect((await call(port, '/metrics', 'not-the-token')).status).toBe(401);

    await stopChild(first, 'SIGTERM', children);
    expect(first.exitCode).toBe(0);
    const second = collect(warehouse, port);
    const secondRun = await controlFile(warehouse);
    expect(secondRun.port).toBe(port);
    expect(secondRun.token).not.toBe(firstRun.token);
    const again = await call(port, '/metrics', metricsToken);
    expect(again.status).toBe(200);
    expect(again.text).toMatch(/^market_collector_warehouse_bytes [1-9]/m);
    expect((await call(port, '/sql', metricsToken, sql)).status).toBe(401);
    expect((await call(port, '/metrics', firstRun.token)).status).toBe(401);
    await stopChild(second, 'SIGTERM', children);
  });
});

describe('refused at start, in one line with exit code 2', () => {
  it('a control port another process listens on', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    try {
      const warehouse = join(t.dir, 'busy.duckdb');
      const child = collect(warehouse, port);
      let stderr = '';
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      const [code] = await once(child, 'exit');
      children.delete(child);
      expect(code).toBe(2);
      expect(stderr).toBe(
        `market: the control port ${port} on 127.0.0.1 is in use by another process: stop it, or give another --control-port (0 picks a free one)\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('a control port another process listens on, in market run too (its service closes first)', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    try {
      const result = await runMarket([
        ...['run', '--port', '0', '--listings', '50', '--control-port', String(port)],
        ...[
          '--db',
          join(t.dir, 'run', 'market.duckdb'),
          '--warehouse',
          join(t.dir, 'run', 'warehouse.duckdb'),
        ],
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `market: the control port ${port} on 127.0.0.1 is in use by another process: stop it, or give another --control-port (0 picks a free one)\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('a history port without a keys file', async () => {
    const result = await runMarket([
      ...['collect', '--base-url', t.baseUrl, '--api-key', key],
      ...['--warehouse', join(t.dir, 'no-keys.duckdb'), '--history-port', '0'],
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'market: --history-port needs --history-keys-file (one key per line, chmod 600)\n',
    );
  });

  it.each([
    ['that is missing', 'absent-token', /^market: cannot read --metrics-token-file .*absent-token: ENOENT/],
    [
      'that is empty',
      'empty-token',
      /^market: --metrics-token-file .*empty-token is empty: write the token in it\n$/,
    ],
  ])('a token file %s', async (_, name, message) => {
    const path = join(t.dir, name);
    if (name === 'empty-token') await writeFile(path, ' \n');
    const result = await runMarket([
      ...['collect', '--base-url', t.baseUrl, '--api-key', key],
      ...['--warehouse', join(t.dir, `${name}.duckdb`), '--metrics-token-file', path],
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('a price history endpoint', () => {
  it('limits each key to MARKET_HISTORY_RATE requests a rolling minute', async () => {
    const keysFile = join(t.dir, 'history-keys.txt');
    const historyKey = 'hist_cli_key_0123456789abcdef';
    await writeFile(keysFile, `${historyKey}\n`, { mode: 0o600 });
    const port = await freePort();
    const child = spawnCollector(
      t.baseUrl,
      key,
      join(t.dir, 'rated.duckdb'),
      [
        ...['--games', '570', '--models-cron', 'off'],
        ...['--history-port', String(port), '--history-keys-file', keysFile],
      ],
      { MARKET_HISTORY_RATE: '2' },
    );
    children.add(child);
    const base = `http://127.0.0.1:${port}/v1/history`;
    await vi.waitFor(async () => expect((await fetch(`${base}/openapi.json`)).status).toBe(200), {
      timeout: 30_000,
      interval: 200,
    });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await fetch(`${base}/items`, { headers: { authorization: `Bearer ${historyKey}` } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(await last?.json()).toMatchObject({ code: 'rate_limit_exceeded', limit: 2 });
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    await stopChild(child, 'SIGTERM', children);
  });
});
