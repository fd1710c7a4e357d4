/**
 * GET /listings/stream: the Server-Sent Events feed of listings appearing (`new`) and leaving
 * (`gone`), resumable by Last-Event-ID, at most 3 open per key. CS2 only; appId is not read.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../../contract/api-error.js';
import { streamQuerySchema } from '../../../contract/listing.js';
import type { ServiceContext } from '../../context.js';
import { compileFilter, isEmptyFilter, type ListingFilter } from '../../market/listing-filter.js';
import { resyncFrame, StreamSession, type StreamSink } from '../../market/stream-session.js';
import { authOf } from '../authenticate.js';
import { AUTH_ERRORS, errorResponses } from '../openapi.js';
import { listingFilterOf } from './market.js';

/** Streams allowed per key at once. */
export const MAX_STREAMS_PER_KEY = 3;

/** Options and state of the stream route. */
export interface StreamRouteOptions {
  /** @default 25_000 */
  heartbeatMs: number;
  /** Bytes a client may fall behind before it is disconnected. @default 8 MiB */
  maxBacklogBytes: number;
  /** Open streams per key id (no entry: none). */
  open: Map<string, number>;
}

/** Registers the stream route. */
export function registerStreamRoutes(app: FastifyInstance, context: ServiceContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const open = context.stream.open;
  api.get(
    '/listings/stream',
    {
      schema: {
        summary:
          'Server-Sent Events of listings appearing (new) and leaving (gone); resumable with Last-Event-ID',
        tags: ['market'],
        querystring: streamQuerySchema,
        headers: z.looseObject({
          'last-event-id': z.string().max(200).optional().meta({ description: 'resume after this event id' }),
        }),
        response: {
          200: {
            description:
              'an endless text/event-stream: `: connected`, then new, gone and resync events and `: heartbeat` comments',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'too_many_streams'),
        },
      },
    },
    async (request, reply) => {
      const { key } = authOf(request);
      const filter = listingFilterOf(request.query);
      const lastEventId = headerValue(request.headers['last-event-id']) ?? request.query.last_event_id;
      const count = open.get(key.id) ?? 0;
      if (count >= MAX_STREAMS_PER_KEY) {
        throw new ApiError(
          'too_many_streams',
          `at most ${MAX_STREAMS_PER_KEY} streams may be open per key; close one first`,
          {
            limit: MAX_STREAMS_PER_KEY,
          },
        );
      }
      open.set(key.id, count + 1);
      const release = once(() => {
        const left = (open.get(key.id) ?? 1) - 1;
        if (left > 0) open.set(key.id, left);
        else open.delete(key.id);
      });
      await runStream(context, reply, filter, lastEventId, release);
    },
  );
}

async function runStream(
  context: ServiceContext,
  reply: FastifyReply,
  filter: ListingFilter,
  lastEventId: string | undefined,
  release: () => void,
): Promise<void> {
  const { stream } = context;
  // From here the connection is ours: Fastify neither serialises nor ends it.
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write(': connected\n\n');
  const sink: StreamSink = {
    write: (chunk) => raw.write(chunk) || raw.writableLength <= stream.maxBacklogBytes,
    drained: () => (raw.writableNeedDrain ? new Promise((r) => raw.once('drain', r)) : Promise.resolve()),
    close: () => raw.destroy(),
  };
  const session = new StreamSession(
    context.catalogue,
    isEmptyFilter(filter) ? null : compileFilter(filter),
    sink,
  );
  const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), stream.heartbeatMs);
  const end = once(() => {
    clearInterval(heartbeat);
    session.stop();
    release();
  });
  raw.once('close', end);
  await session.start(resumePoint(context, lastEventId, raw)).catch(() => raw.destroy());
}

/** The log position to replay after, or null to go live (writing a resync notice when the id cannot be resumed). */
function resumePoint(
  context: ServiceContext,
  lastEventId: string | undefined,
  raw: { write(s: string): boolean },
) {
  if (lastEventId === undefined || lastEventId === '') return null;
  const log = context.catalogue.log;
  const parsed = log.parseEventId(lastEventId);
  if (parsed.kind === 'position' && parsed.position >= log.oldest - 1 && parsed.position <= log.head) {
    return parsed.position;
  }
  const why =
    parsed.kind === 'foreign'
      ? 'the last event id is not one of this feed (another or a wiped database)'
      : 'the last event id is older than the retained history';
  raw.write(resyncFrame(`${why}; re-read /listings?sort=newest, then reconnect without Last-Event-ID`));
  return null;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
