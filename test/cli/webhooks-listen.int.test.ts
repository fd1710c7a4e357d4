/**
 * `market webhooks listen` against a running `market run`: it registers its local HTTPS receiver
 * (trusted through the sandbox's loopback allowance), prints each verified event of the key's
 * orders, forwards the raw body and signature headers, and removes the endpoint on SIGINT.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/client/index.js';
import { spawnMarket, waitForLine } from '../helpers/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-listen-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A plain HTTP server recording what is forwarded to it. */
async function startForwardTarget() {
  const received: { headers: Record<string, string | string[] | undefined>; raw: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('market webhooks listen', () => {
  it('receives, verifies, prints and forwards the events of a market run account, and removes its endpoint on SIGINT', async () => {
    const db = join(dir, 'market.duckdb');
    const run = spawnMarket([
      'run',
      ...['--port', '0', '--db', db, '--warehouse', join(dir, 'warehouse.duckdb'), '--listings', '200'],
    ]);
    const target = await startForwardTarget();
    try {
      const lines: string[] = [];
      run.stdout?.on('data', (d) => lines.push(String(d)));
      await waitForLine(run, /^stop with Ctrl-C/);
      const listenLine = /^webhooks of your orders.*$/m.exec(lines.join(''))?.[0] ?? '';
      const baseUrl = /--base-url (\S+)/.exec(listenLine)?.[1] ?? '';
      const key = /--api-key (\S+)/.exec(listenLine)?.[1] ?? '';
      const tlsDir = /--tls-dir (\S+)/.exec(listenLine)?.[1] ?? '';
      expect(tlsDir).toBe(join(dir, 'webhook-tls'));
      const listener = spawnMarket([
        'webhooks',
        'listen',
        ...['--base-url', baseUrl, '--api-key', key, '--tls-dir', tlsDir, '--forward-to', target.url],
      ]);
      const events: string[] = [];
      listener.stdout?.on('data', (d) => events.push(String(d)));
      const ready = await waitForLine(listener, /^ready: /);
      const secret = /signing secret (\S+);/.exec(ready)?.[1] ?? '';
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const page = (await (await fetch(`${baseUrl}/listings?limit=1`, { headers })).json()) as {
        items: { id: string }[];
      };
      const order = (await (
        await fetch(`${baseUrl}/orders`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ listing_ids: [page.items[0]?.id], custom_id: 'listen-order' }),
        })
      ).json()) as { order_id: string };
      const line = await waitForLine(listener, /order\.updated/);
      expect(line).toContain(order.order_id);
      expect(line).toMatch(/-> 204$/);
      const [forwarded] = target.received;
      const event = verifyWebhook(secret, forwarded?.headers['x-service-signature'], forwarded?.raw ?? '');
      expect(event.type).toBe('order.updated');
      const exited = once(listener, 'exit');
      listener.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(0);
      const hooks = (await (await fetch(`${baseUrl}/webhooks`, { headers })).json()) as { data: unknown[] };
      expect(hooks.data).toEqual([]);
    } finally {
      await target.close();
      const stopped = once(run, 'exit');
      run.kill('SIGTERM');
      await stopped;
    }
  }, 120_000);

  it('says how to allow loopback receivers when the service refuses them', async () => {
    const serve = spawnMarket([
      'serve',
      '--port',
      '0',
      '--db',
      join(dir, 'plain.duckdb'),
      '--listings',
      '50',
      '--sandbox',
    ]);
    try {
      const baseUrl = await waitForLine(serve, /^http:\/\/.+\/v1$/);
      const created = await fetch(`${baseUrl.replace(/\/v1$/, '')}/sandbox/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"balance_usd": 5}',
      });
      const { api_key } = (await created.json()) as { api_key: string };
      const listener = spawnMarket([
        'webhooks',
        'listen',
        ...['--base-url', baseUrl, '--api-key', api_key, '--tls-dir', join(dir, 'tls')],
      ]);
      let stderr = '';
      listener.stderr?.on('data', (d) => {
        stderr += d;
      });
      const [code] = await once(listener, 'exit');
      expect(code).toBe(2);
      expect(stderr).toContain('--webhook-allow-loopback --webhook-ca');
      expect(stderr).not.toContain('    at ');
    } finally {
      const stopped = once(serve, 'exit');
      serve.kill('SIGTERM');
      await stopped;
    }
  });
});
