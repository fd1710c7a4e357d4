/**
 * `market webhooks listen`: tries webhooks against a running sandbox service, as `stripe listen`
 * does. It serves a local HTTPS receiver on 127.0.0.1 with the loopback certificate the service
 * trusts (see loopback-tls.ts), registers it as an endpoint of the key's account, verifies each
 * delivery's signature, prints one line per event, forwards the raw body and signature headers to
 * `--forward-to` when given (answering the service with what that answered), and removes the
 * endpoint when it stops.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { isApiError, MarketClient, verifyWebhook } from '../client/index.js';
import { WEBHOOK_HEADERS, type WebhookEvent } from '../contract/webhook.js';
import { CliError } from './cli-error.js';
import { parseFlags } from './flags.js';
import { loopbackTls } from './loopback-tls.js';
import { webhooksListenFlags } from './options.js';
import { stopOnSignal } from './stop-on-signal.js';

/** Registers the receiver, prints what arrives until SIGINT or SIGTERM, then removes the endpoint. */
export async function listenWebhooks(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(webhooksListenFlags, flags);
  const tls = await loopbackTls(config.tlsDir);
  const client = new MarketClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, maxRetries: 1 });
  const receiver = { secret: '' };
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    void receive(req, res, receiver.secret, config.forwardTo);
  });
  const sockets = trackSockets(server);
  server.listen(config.port, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const endpoint = await register(client, url, tls.certPath).catch(async (error: unknown) => {
    await Promise.all([closeServer(server, sockets), client.close()]);
    throw error;
  });
  receiver.secret = endpoint.secret;
  // Before the ready line: whoever reads it may send the signal at once.
  stopOnSignal(`endpoint ${endpoint.id} removed`, async () => {
    try {
      await client.webhooks.delete(endpoint.id);
    } finally {
      await Promise.all([closeServer(server, sockets), client.close()]);
    }
  });
  process.stdout.write(
    `ready: endpoint ${endpoint.id} receives at ${url}; signing secret ${endpoint.secret}` +
      `${config.forwardTo ? `; forwarding to ${config.forwardTo}` : ''} (Ctrl-C removes it)\n`,
  );
}

/** Registers `url`; a refusal of loopback URLs says which service allows them. */
async function register(client: MarketClient, url: string, certPath: string) {
  try {
    return await client.webhooks.create({ url, description: 'market webhooks listen' });
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_webhook_url')
      throw new CliError(
        `the service refuses ${url} (${error.detail}); loopback receivers need the sandbox service ` +
          `of npm start (market run), or market serve --sandbox --webhook-allow-loopback --webhook-ca ${certPath}`,
      );
    if (isApiError(error))
      throw new CliError(`the service refused the endpoint: ${error.code}: ${error.detail}`);
    throw new CliError(`cannot reach the service: ${(error as Error).message}`);
  }
}

/** Verifies one delivery, prints its line, forwards it when asked, and answers the service. */
async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  secret: string,
  forwardTo: string | undefined,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  let event: WebhookEvent;
  try {
    event = verifyWebhook(secret, req.headers[WEBHOOK_HEADERS.signature], raw);
  } catch (error) {
    process.stdout.write(`${new Date().toISOString()} rejected: ${(error as Error).message}\n`);
    res.writeHead(400).end();
    return;
  }
  const status = forwardTo ? await forward(forwardTo, req, raw) : 200;
  process.stdout.write(`${eventLine(event)}${forwardTo ? ` -> ${status}` : ''}\n`);
  res.writeHead(typeof status === 'number' ? status : 502).end();
}

/** `<time> <type> <event id>`, and the order and its status for an order update. */
function eventLine(event: WebhookEvent): string {
  const base = `${new Date().toISOString()} ${event.type} ${event.id}`;
  if (event.type !== 'order.updated') return base;
  const order = event.data as { order_id?: string; status?: string };
  return `${base} ${order.order_id ?? ''} ${order.status ?? ''}`;
}

/** POSTs the raw body with its content type and signature headers; the status, or the failure's text. */
async function forward(url: string, req: IncomingMessage, raw: Buffer): Promise<number | string> {
  const headers: Record<string, string> = {};
  for (const name of ['content-type', ...Object.values(WEBHOOK_HEADERS)]) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers,
      body: raw,
      signal: AbortSignal.timeout(9_000),
    });
    await answer.arrayBuffer();
    return answer.status;
  } catch (error) {
    return `failed (${(error as Error).message})`;
  }
}

/**
 * Every TCP connection of `server` while it is open. An HTTPS server knows a connection only once
 * its TLS handshake is done: one that never finishes it would hold `close` for two minutes.
 */
function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

/** Stops accepting and cuts every connection, whatever state it is in (deliveries are retried). */
function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) socket.destroy();
  return closed;
}
