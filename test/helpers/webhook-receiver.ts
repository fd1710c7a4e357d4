/**
 * A real HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate made for the test: it
 * records every request (raw body, headers, the service clock at arrival) and every TCP
 * connection, and answers as the test tells it.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeLoopbackCertificate } from '../../src/shared/loopback-certificate.js';

/** A request as the receiver saw it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  /** The service clock when it arrived (when the receiver was given one), else the wall clock. */
  at: number;
}

/** How the receiver answers a request. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wall-clock milliseconds to wait before answering (a slow receiver). */
  delayMs?: number;
  /** Answers only once this settles (a receiver that holds requests until told). */
  hold?: Promise<void>;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** PEM of the certificate, which is its own CA. */
  ca: string;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Sets how the following requests are answered. */
  answer(how: (request: ReceivedRequest) => Answer): void;
  close(): Promise<void>;
}

let certificate: Promise<{ cert: string; key: string }> | undefined;

/** One certificate per test file, for 127.0.0.1 (made once; key generation takes a moment). */
function loopbackCertificate(): Promise<{ cert: string; key: string }> {
  certificate ??= makeLoopbackCertificate();
  return certificate;
}

/** Starts a receiver answering 200 `ok` until told otherwise. */
export async function startWebhookReceiver(clock?: { now(): number }): Promise<WebhookReceiver> {
  const { cert, key } = await loopbackCertificate();
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  let how: (request: ReceivedRequest) => Answer = () => ({ status: 200, body: 'ok' });
  const pending = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
        at: clock ? clock.now() : Date.now(),
      };
      requests.push(received);
      const answer = how(received);
      const reply = () => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.hold) {
        void answer.hold.then(reply);
        return;
      }
      if (!answer.delayMs) return reply();
      const timer = setTimeout(() => {
        pending.delete(timer);
        reply();
      }, answer.delayMs);
      pending.add(timer);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    ca: cert,
    requests,
    connections: () => connections,
    answer(next) {
      how = next;
    },
    async close() {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
