/**
 * GET /listings/stream: the Server-Sent Events feed of listings appearing (`new`) and leaving
 * (`gone`), resumable by Last-Event-ID, at most 3 open per key. CS2 only; appId is not read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { streamQuerySchema } from '../../contract/listing.js';
import { authOf, refundRateSlot } from '../http/authenticate.js';
import { AUTH_ERRORS, errorResponses } from '../http/openapi.js';
import type { RollingWindowLimiter } from '../http/rate-limiter.js';
import type { Catalogue } from './catalogue.js';
import { compileFilter, isEmptyFilter, type ListingFilter } from './listing-index/listing-filter.js';
import { listingFilterOf } from './listing-search.js';
import type { EventLog, ParsedEventId } from './stream/event-log.js';
import type { StreamRegistry } from './stream/stream-registry.js';
import { resyncFrame, StreamSession, type StreamSink } from './stream/stream-session.js';

/** What the stream route needs. */
export interface StreamRouteDeps {
  catalogue: Catalogue;
  streams: StreamRegistry;
  /** Gives back the read of a refused stream. */
  limiter: RollingWindowLimiter;
  /** @default 25_000 */
  heartbeatMs: number;
  /** Bytes a client may fall behind before it is disconnected. @default 8 MiB */
  maxBacklogBytes: number;
}

/** The last words of a stream whose service stops; the end of the response follows. */
const STOPPING_COMMENT = ': the service is stopping; reconnect with Last-Event-ID\n\n';

/** Registers the stream route; closing the app ends every open stream. */
export function registerStreamRoutes(app: FastifyInstance, deps: StreamRouteDeps): void {
  // A stream never ends by itself: without this, closing the service would wait on its clients.
  app.addHook('preClose', () => deps.streams.stopAll());
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/listings/stream',
    {
      config: { requires: ['cs2'] },
      schema: {
        operationId: 'streamListings',
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
              "an endless text/event-stream: `: connected`, then new, gone and resync events and `: heartbeat` comments. Every event has an id; a resync (a Last-Event-ID that is malformed, of another database, past the newest event or older than the retained history; its detail says which) carries the newest event's id, where the stream goes on live: resume from it. The Date header is the service clock, as every answer's",
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'too_many_streams'),
        },
      },
    },
    async (request, reply) => {
      const filter = listingFilterOf(request.query);
      const lastEventId = headerValue(request.headers['last-event-id']) ?? request.query.last_event_id;
      const release = takeStreamPlace(deps, request);
      await runStream(deps, reply, filter, lastEventId, release);
    },
  );
}

/** A place among the key's open streams; a refusal gives back the read it took, so it costs nothing. */
function takeStreamPlace(deps: StreamRouteDeps, request: FastifyRequest): () => void {
  try {
    return deps.streams.acquire(authOf(request).key.id);
  } catch (error) {
    refundRateSlot(request, deps.limiter);
    throw error;
  }
}

async function runStream(
  deps: StreamRouteDeps,
  reply: FastifyReply,
  filter: ListingFilter,
  lastEventId: string | undefined,
  release: () => void,
): Promise<void> {
  // From here the connection is ours: Fastify neither serialises nor ends it.
  const raw = reply.raw;
  reply.takeOver(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write(': connected\n\n');
  const sink: StreamSink = {
    write: (chunk) => raw.write(chunk) || raw.writableLength <= deps.maxBacklogBytes,
    drained: () => (raw.writableNeedDrain ? new Promise((r) => raw.once('drain', r)) : Promise.resolve()),
    close: () => raw.destroy(),
  };
  const session = new StreamSession(
    deps.catalogue,
    isEmptyFilter(filter) ? null : compileFilter(filter),
    sink,
  );
  const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), deps.heartbeatMs);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    session.stop();
  };
  // Nothing is written after the last frame, so the client's last id is all the next process needs.
  const stop = () => {
    end();
    raw.end(STOPPING_COMMENT);
  };
  const stopSignal = deps.streams.stopSignal;
  stopSignal.addEventListener('abort', stop, { once: true });
  raw.once('close', () => {
    stopSignal.removeEventListener('abort', stop);
    end();
    release();
  });
  if (stopSignal.aborted) return stop();
  await session.start(resumePoint(deps.catalogue, lastEventId, raw)).catch(() => raw.destroy());
}

/**
 * The log position to replay after, or null to go live. An id that cannot be resumed gets a resync
 * notice whose id is the head: the session goes live from the head it read in the same tick.
 */
function resumePoint(
  catalogue: Catalogue,
  lastEventId: string | undefined,
  raw: { write(s: string): boolean },
) {
  if (lastEventId === undefined || lastEventId === '') return null;
  const log = catalogue.log;
  const parsed = log.parseEventId(lastEventId);
  if (parsed.kind === 'position' && parsed.position >= log.oldest - 1 && parsed.position <= log.head) {
    return parsed.position;
  }
  raw.write(
    resyncFrame(
      `${whyUnresumable(parsed, log)}; re-read /listings?sort=newest: the events after this notice's id follow, so resume from it (or reconnect without Last-Event-ID)`,
      log.eventId(log.head),
    ),
  );
  return null;
}

/** Why an id outside the log's retained positions cannot be resumed from. */
function whyUnresumable(parsed: ParsedEventId, log: EventLog): string {
  switch (parsed.kind) {
    case 'malformed':
      return 'the last event id is not an event id of this feed';
    case 'foreign':
      return 'the last event id is not one of this feed (another or a wiped database)';
    case 'position':
      return parsed.position > log.head
        ? 'the last event id is past the newest event of this feed (a database restored from an older copy)'
        : 'the last event id is older than the retained history';
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
