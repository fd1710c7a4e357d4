/**
 * A loopback HTTP proxy in front of a test service that forwards every request and, when told,
 * loses the answer of the next matching ones: the request takes effect on the service, but the
 * client sees the connection drop or a gateway's 504, as when a load balancer gives up.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** How an answer is lost: the connection drops (`drop`) or a gateway answers 504 (`gateway_timeout`). */
export type Loss = 'drop' | 'gateway_timeout';

/** A running proxy. */
export interface LossyProxy {
  /** The proxy's `/v1` base URL, for a MarketClient. */
  baseUrl: string;
  /** Every request forwarded, as `METHOD /path?query`. */
  forwarded: string[];
  /** Loses the answers of the next `count` requests of `method` whose path starts with `path`. */
  loseNext(method: string, path: string, loss: Loss, count?: number): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Starts a proxy on 127.0.0.1 forwarding to `origin` (the service's, without `/v1`). */
export async function startLossyProxy(origin: string): Promise<LossyProxy> {
  const forwarded: string[] = [];
  const losses: { method: string; path: string; loss: Loss }[] = [];
  const server = createServer((req, res) => {
    void forward(req).then(
      (answer) => {
        const what = `${req.method} ${req.url}`;
        forwarded.push(what);
        const index = losses.findIndex((l) => l.method === req.method && req.url?.startsWith(l.path));
        const lost = index === -1 ? undefined : losses.splice(index, 1)[0];
        if (lost?.loss === 'drop') return req.socket.destroy();
        if (lost?.loss === 'gateway_timeout') {
          res.writeHead(504, { 'content-type': 'text/html' }).end('<html>504 Gateway Time-out</html>');
          return;
        }
        res.writeHead(answer.status, answer.headers).end(answer.body);
      },
      () => req.socket.destroy(),
    );
  });

  async function forward(req: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value;
    const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
    const response = await request(`${origin}${req.url}`, {
      method: (req.method ?? 'GET') as 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const answerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      if (typeof value === 'string' && !HOP_BY_HOP.has(name)) answerHeaders[name] = value;
    return { status: response.statusCode, headers: answerHeaders, body: await response.body.text() };
  }

  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    forwarded,
    loseNext(method, path, loss, count = 1) {
      for (let i = 0; i < count; i++) losses.push({ method, path: `/v1${path}`, loss });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Each way of losing an answer, with what the client sees, for `it.each`. */
export const LOSSES = [
  ['drop', 'the connection drops'],
  ['gateway_timeout', 'a gateway answers 504'],
] as const satisfies readonly (readonly [Loss, string])[];
