/** A loopback server that answers with scripted steps, and a MarketClient of it on a fake clock. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { MarketClient, type MarketClientOptions } from '../../src/client/index.js';
import { isApiError } from '../../src/contract/api-error.js';

/** What the scripted server does with one request. */
export type Step = (req: IncomingMessage, res: ServerResponse) => void;

/** A request the scripted server received, its body read whole. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers with a JSON body. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

/** Answers with a proxy's HTML page. */
export const html =
  (status: number): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
  };

/** Drops the connection without an answer. */
export const reset: Step = (req) => req.socket.destroy();

/** Never answers. */
export const hang: Step = () => {};

/** A loopback server answering its n-th request with `steps[n]` (the last step repeats). */
export async function scripted(steps: Step[]) {
  const seen: string[] = [];
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const step = steps[Math.min(seen.length, steps.length - 1)];
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      step?.(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { baseUrl: `http://127.0.0.1:${port}/v1`, seen, requests, close };
}

/** A fake clock whose sleep moves it forward at once and remembers each wait. */
export function fakeTime() {
  let now = Date.now();
  const sleeps: number[] = [];
  const clock = { now: () => now };
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    now += ms;
  };
  return { clock, sleep, sleeps };
}

/**
 * A client of a scripted server, with a fake clock and a fixed jitter of one half; both are
 * closed when the test finishes.
 */
export async function scriptedClient(steps: Step[], options: Partial<MarketClientOptions> = {}) {
  const server = await scripted(steps);
  const { clock, sleep, sleeps } = fakeTime();
  const client = new MarketClient({
    baseUrl: server.baseUrl,
    apiKey: 'svc_pub_scripted',
    clock,
    sleep,
    random: () => 0.5,
    ...options,
  });
  onTestFinished(async () => {
    await client.close();
    await server.close();
  });
  return { client, seen: server.seen, requests: server.requests, sleeps };
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded');
}

/** The status and code of the ApiError a promise rejects with; fails on anything else. */
export async function refusalOf(promise: Promise<unknown>): Promise<[number, string]> {
  const error = await rejection(promise);
  if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return [error.status, error.code];
}
