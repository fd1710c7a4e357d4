/**
 * The price history endpoint of the daemon that holds the warehouse: a Fastify app on its own port
 * (127.0.0.1 unless told otherwise) with its own keys, reading the file and the lake as one
 * history. Every error is `{ code, detail }` from the contract's catalogue, rendered by the same
 * handler as the service's; CORS only for the origins given; gzip when the client accepts it.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ApiError } from '../../contract/api-error.js';
import {
  candlesQuerySchema,
  itemsQuerySchema,
  moversQuerySchema,
  statsQuerySchema,
} from '../../contract/history.js';
import { answerClientError } from '../../shared/client-error-answer.js';
import { closeWithin } from '../../shared/close-within.js';
import { registerCors } from '../../shared/cors.js';
import { registerErrorHandling } from '../../shared/error-handler.js';
import { type ClientTimeouts, slowClientOptions } from '../../shared/slow-clients.js';
import type { Warehouse } from '../../warehouse/index.js';
import { createHistoryAccess } from './access.js';
import { readCandles } from './candles.js';
import { registerGzip } from './gzip.js';
import { HistoryReader } from './history-reader.js';
import { readItems } from './items.js';
import { buildHistoryDocument, HISTORY_PATHS } from './openapi.js';
import { readMovers, readStats } from './stats.js';

/** Options of {@link startHistoryServer}. */
export interface HistoryServerOptions {
  /** The port; 0 picks a free one. */
  port: number;
  /** The address to bind. @default '127.0.0.1' */
  host?: string;
  /** Digests of the accepted keys (see keys-file.ts). */
  keys: ReadonlySet<string>;
  /** Origins whose browsers may read the answers; none, no CORS headers. @default [] */
  corsOrigins?: readonly string[];
  /** Requests per key and rolling minute. @default 120 */
  ratePerMinute?: number;
  /** The clock of buckets still open, rate windows and bans. @default Date.now */
  now?: () => number;
  /** Hears of unexpected failures. */
  log?: Logger;
  /** Deadlines of slow clients (tests shorten them). */
  timeouts?: ClientTimeouts;
}

/** The running endpoint. */
export interface HistoryServer {
  port: number;
  /** Interrupts the reads in progress and stops listening. */
  close(): Promise<void>;
}

/** Starts the endpoint; a port in use fails the start with the flag that moves it. */
export async function startHistoryServer(
  warehouse: Warehouse,
  options: HistoryServerOptions,
): Promise<HistoryServer> {
  const now = options.now ?? Date.now;
  const reader = new HistoryReader(warehouse);
  const app = Fastify({
    ...slowClientOptions(options.timeouts),
    clientErrorHandler: answerClientError,
    ...(options.log
      ? { loggerInstance: options.log.child({ component: 'history' }, { level: 'warn' }) }
      : {}),
  });
  const access = createHistoryAccess({
    keys: options.keys,
    now,
    ...(options.ratePerMinute ? { ratePerMinute: options.ratePerMinute } : {}),
  });
  registerErrorHandling(app, access.banRefusal);
  await registerCors(app, options.corsOrigins ?? []);
  access.register(app);
  registerGzip(app);
  const document = JSON.stringify(buildHistoryDocument());
  app.get(HISTORY_PATHS.openapi, async (_request, reply) => reply.type('application/json').send(document));
  app.get(HISTORY_PATHS.candles, async (request, reply) => {
    const { answer, closed } = await readCandles(reader, parseQuery(candlesQuerySchema, request), now());
    const body = JSON.stringify(answer);
    reply.type('application/json; charset=utf-8');
    if (!closed) return reply.send(body);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    reply.header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(body);
  });
  app.get(HISTORY_PATHS.items, async (request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(await readItems(reader, parseQuery(itemsQuerySchema, request)))),
  );
  app.get(HISTORY_PATHS.stats, async (request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(await readStats(reader, parseQuery(statsQuerySchema, request), now()))),
  );
  app.get(HISTORY_PATHS.movers, async (request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(await readMovers(reader, parseQuery(moversQuerySchema, request), now()))),
  );
  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port });
  } catch (error) {
    await app.close();
    throw clearerListenError(error, options.port);
  }
  return {
    port: (app.server.address() as AddressInfo).port,
    async close() {
      const stopped = reader.stop();
      await closeWithin(app);
      await stopped;
    },
  };
}

/** The query parsed by `schema`, or 400 `invalid_param` naming the first parameter at fault. */
function parseQuery<T extends z.ZodType>(schema: T, request: FastifyRequest): z.infer<T> {
  const parsed = schema.safeParse(request.query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join('.') || 'query';
  throw new ApiError('invalid_param', `query parameter ${where}: ${issue?.message ?? 'is invalid'}`);
}

function clearerListenError(error: unknown, port: number): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return error;
  const message = `the history port ${port} is in use by another process: stop it, or give another --history-port`;
  return Object.assign(new Error(message), { code: 'EADDRINUSE' });
}
