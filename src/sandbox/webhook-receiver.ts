/**
 * A webhook receiver for a bot's tests: an HTTPS server on 127.0.0.1 serving a certificate the
 * sandbox trusts, which records every delivery as the bot's own receiver gets it (the raw body and
 * its signature header) and answers 200, or the status the test sets. The test then verifies the
 * deliveries with the client's `verifyWebhook`, as the bot's receiver does.
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_HEADERS } from '../contract/webhook.js';
import type { LoopbackCertificate } from '../shared/loopback-certificate.js';

/** One request of the service to the receiver. */
export interface SandboxWebhookDelivery {
  /** The raw body, exactly the bytes signed: verify it before parsing it. */
  body: string;
  /** The `X-Service-Signature` header, `t=…,v1=…`. */
  signature: string;
  /** Every header as it arrived. */
  headers: IncomingHttpHeaders;
}

/** A running receiver made by `sandbox.receiveWebhooks()`. */
export interface SandboxWebhookReceiver {
  /** `https://127.0.0.1:<port>/webhooks`: register it with `client.webhooks.create({ url })`. */
  url: string;
  /** The deliveries so far, in the order they arrived. */
  deliveries: SandboxWebhookDelivery[];
  /**
   * Resolves with the first `count` deliveries once that many have arrived: the service sends in
   * the background, a moment after the change (or the clock move) that queued the event.
   */
  received(count: number): Promise<SandboxWebhookDelivery[]>;
  /** Answers the following deliveries with `status` (500 makes the service retry on its ladder). @default 200 */
  answerWith(status: number): void;
  /** Stops the receiver; `sandbox.close()` stops it too. */
  close(): Promise<void>;
}

/** Starts a receiver serving `tls` on a free port of 127.0.0.1. */
export async function startWebhookReceiver(tls: LoopbackCertificate): Promise<SandboxWebhookReceiver> {
  const deliveries: SandboxWebhookDelivery[] = [];
  const waiting = new Set<{ count: number; resolve: () => void; reject: (error: Error) => void }>();
  let status = 200;
  let closed: Promise<void> | null = null;
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const signature = req.headers[WEBHOOK_HEADERS.signature];
      deliveries.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: typeof signature === 'string' ? signature : '',
        headers: req.headers,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'refused');
      for (const wait of waiting) if (deliveries.length >= wait.count) wait.resolve();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/webhooks`,
    deliveries,
    received(count) {
      if (deliveries.length >= count) return Promise.resolve(deliveries.slice(0, count));
      if (closed) return Promise.reject(new Error('the webhook receiver is closed'));
      return new Promise((resolve, reject) => {
        const wait = {
          count,
          resolve: () => {
            waiting.delete(wait);
            resolve(deliveries.slice(0, count));
          },
          reject: (error: Error) => {
            waiting.delete(wait);
            reject(error);
          },
        };
        waiting.add(wait);
      });
    },
    answerWith(next) {
      status = next;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const wait of waiting)
          wait.reject(new Error(`the webhook receiver closed after ${deliveries.length} deliveries`));
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
