/**
 * SIGTERM stops a command whatever its clients hold open: `market serve` and `market run` end every
 * listing stream (the client resumes against the next process with its last id, with no gap and no
 * duplicate), and no stream, request trickling in, idle keep-alive connection or unfinished TLS
 * handshake keeps `market serve`, `market run`, the collector's control endpoint (`market
 * collect`) or `market webhooks listen` alive.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopbackTls } from '../../src/cli/loopback-tls.js';
import { type ControlFile, controlFileOf } from '../../src/collector/control/protocol.js';
import { spawnCollector, spawnMarket, waitForLine } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { type OneStream, streamOnce } from '../helpers/stream-once.js';
import { trickle } from '../helpers/trickle.js';

const STOPPING = 'the service is stopping; reconnect with Last-Event-ID';

let dir: string;
let t: TestService | null = null;
const children: ChildProcess[] = [];
const held: (Socket | OneStream)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-shutdown-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

afterEach(async () => {
  for (const h of held.splice(0)) 'destroy' in h ? h.destroy() : h.close();
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t?.close();
  t = null;
});

/** Spawns `market <args>` and kills it after the test if it is still running. */
function spawn(args: string[]): ChildProcess {
  const child = spawnMarket(args);
  children.push(child);
  return child;
}

/** Sends SIGTERM and resolves with the exit code (the test's timeout bounds the wait). */
async function terminate(child: ChildProcess): Promise<number | null> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

/** Collects what a child writes on stderr. */
function stderrOf(child: ChildProcess): { text: string } {
  const out = { text: '' };
  child.stderr?.on('data', (d) => {
    out.text += d;
  });
  return out;
}

/** A raw connection that sent `request` and got its answer, left open (keep-alive) and idle. */
async function idleKeepAlive(port: number, request: string): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  held.push(socket);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(request);
  await once(socket, 'data');
  return socket;
}

/** A raw TCP connection that never sends a byte (no HTTP request, no TLS handshake). */
async function silentConnection(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  held.push(socket);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** Opens a stream and remembers to close it after the test. */
async function openStream(baseUrl: string, key: string, lastEventId?: string): Promise<OneStream> {
  const stream = await streamOnce(baseUrl, key, lastEventId);
  held.push(stream);
  return stream;
}

/** A key of a new sandbox account of the service at `baseUrl`. */
async function sandboxKey(baseUrl: string): Promise<string> {
  const created = await fetch(`${baseUrl.replace(/\/v1$/, '')}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"balance_usd": 5}',
  });
  return ((await created.json()) as { api_key: string }).api_key;
}

const portOf = (url: string) => Number(new URL(url).port);

/** A POST whose 4,000-byte body never arrives whole (the client sends a byte every 200 ms). */
function trickledPost(port: number, path: string, headers = '') {
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}content-type: application/json\r\ncontent-length: 4000\r\n\r\n`;
  return trickle(port, head, 'x'.repeat(4000), { everyMs: 200, giveUpMs: 50_000 });
}

describe('market serve on SIGTERM', () => {
  it('ends an open stream, exits whatever its clients hold, and a restart replays from the last id with no gap', async () => {
    const db = join(dir, 'serve.duckdb');
    const serve = ['serve', ...['--port', '0', '--db', db, '--listings', '300', '--sandbox']];
    // A brisk market, so events keep coming while the client is away.
    serve.push('--churn-rate', '20');
    const first = spawn(serve);
    const firstErr = stderrOf(first);
    const baseUrl = await waitForLine(first, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const key = await sandboxKey(baseUrl);
    const stream = await openStream(baseUrl, key);
    await stream.until((events) => events.length >= 5);
    const slow = trickledPost(portOf(baseUrl), '/sandbox/accounts');
    await idleKeepAlive(portOf(baseUrl), 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await silentConnection(portOf(baseUrl));

    expect(await terminate(first), firstErr.text).toBe(0);
    expect(await stream.ended).toBe('ended');
    expect(stream.comments).toContain(STOPPING);
    expect((await slow).closedByServer).toBe(true);

    // The database is free again; events go on appearing in the restarted process, and a client
    // resuming from its last id gets exactly what the log holds after it: no gap, no duplicate.
    const second = spawn(serve);
    const nextUrl = await waitForLine(second, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const seenBefore = stream.events.map((e) => e.id);
    const lastId = seenBefore.at(-1) as string;
    // The log as a client from the first event on reads it: the reference of what was missed.
    const reference = await openStream(nextUrl, key, seenBefore[0]);
    await reference.until((events) => events.length >= seenBefore.length - 1 + 5);
    const resumed = await openStream(nextUrl, key, lastId);
    await resumed.until((events) => events.length >= 8);
    const seen = [...seenBefore.slice(1), ...resumed.events.map((e) => e.id)];
    await reference.until((events) => events.length >= seen.length);
    expect(reference.events.slice(0, seen.length).map((e) => e.id)).toEqual(seen);
    expect(await terminate(second)).toBe(0);
  });
});

describe('market run on SIGTERM', () => {
  it('ends an open stream and closes everything, whatever its clients hold', async () => {
    const db = join(dir, 'run.duckdb');
    const run = spawn([
      'run',
      ...['--port', '0', '--db', db, '--warehouse', join(dir, 'wh.duckdb'), '--listings', '200'],
    ]);
    const err = stderrOf(run);
    const lines: string[] = [];
    run.stdout?.on('data', (d) => lines.push(String(d)));
    await waitForLine(run, /^stop with Ctrl-C/);
    const printed = lines.join('');
    const baseUrl = /^http:\/\/\S+\/v1$/m.exec(printed)?.[0] ?? '';
    const key = /your API key.*: (svc_pub_\S+)$/m.exec(printed)?.[1] ?? '';
    const stream = await openStream(baseUrl, key);
    const slow = trickledPost(portOf(baseUrl), '/sandbox/accounts');
    await idleKeepAlive(portOf(baseUrl), 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');

    expect(await terminate(run), err.text).toBe(0);
    // A busy machine may reach the 4 s fallback (as start.int.test.ts allows); the stream's clean end
    // and the cut trickle are what show that no client held the stop.
    expect(err.text).toMatch(
      /^stopped: the service, the collector and the demo trader (closed|did not close within 4000 ms)/m,
    );
    expect(await stream.ended).toBe('ended');
    expect(stream.comments).toContain(STOPPING);
    expect((await slow).closedByServer).toBe(true);
  });
});

describe('market collect on SIGTERM', () => {
  it('closes its control endpoint and exits, whatever the endpoint’s clients hold', async () => {
    t = await startTestService({ listings: 300 });
    const { key } = await t.account({ balance_usd: 50 });
    const warehouse = join(t.dir, 'warehouse.duckdb');
    const collector = spawnCollector(t.baseUrl, key, warehouse);
    children.push(collector);
    const err = stderrOf(collector);
    await expect
      .poll(() => readFile(controlFileOf(warehouse), 'utf8').catch(() => ''), { timeout: 30_000 })
      .not.toBe('');
    const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as ControlFile;
    const auth = `Authorization: Bearer ${control.token}\r\n`;
    const slow = trickledPost(control.port, '/sql', auth);
    await idleKeepAlive(
      control.port,
      `GET /status HTTP/1.1\r\nHost: 127.0.0.1:${control.port}\r\n${auth}\r\n`,
    );
    await silentConnection(control.port);

    expect(await terminate(collector), err.text).toBe(0);
    expect((await slow).closedByServer).toBe(true);
  });
});

describe('market webhooks listen on SIGTERM', () => {
  it('removes its endpoint and exits, whatever connections its receiver holds', async () => {
    const tlsDir = join(dir, 'tls');
    const tls = await loopbackTls(tlsDir);
    t = await startTestService({ listings: 50, webhooks: { allowLoopback: true, loopbackCa: tls.cert } });
    const { key } = await t.account();
    const listen = spawn([
      'webhooks',
      'listen',
      ...['--base-url', t.baseUrl, '--api-key', key, '--tls-dir', tlsDir],
    ]);
    const err = stderrOf(listen);
    const ready = await waitForLine(listen, /^ready: /);
    const port = Number(/https:\/\/127\.0\.0\.1:(\d+)\//.exec(ready)?.[1]);
    // One TCP connection that never starts its TLS handshake, one that made it and sends nothing.
    await silentConnection(port);
    const secure = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false });
    held.push(secure);
    secure.on('error', () => undefined);
    await once(secure, 'secureConnect');

    expect(await terminate(listen), err.text).toBe(0);
    expect((await t.call('/webhooks', { key })).body.data).toEqual([]);
  });
});
