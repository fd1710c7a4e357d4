/**
 * GET /prices/snapshot.ndjson.gz: the cached CS2 price snapshot (CS2 only; appId is not read).
 * `If-None-Match` with the current ETag answers 304 and never counts against the limit, so a
 * once-a-minute conditional poll is never refused; each full download (200) counts, one per key
 * per rolling minute, else 429 snapshot_rate_limited with Retry-After. A HEAD (the 200's headers,
 * no body) never counts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../contract/api-error.js';
import { timestampSchema } from '../../contract/common.js';
import type { Clock } from '../core/clock.js';
import { authOf, enforceRateLimit } from '../http/authenticate.js';
import { AUTH_ERRORS, documentedResponse, errorResponses } from '../http/openapi.js';
import type { RollingWindowLimiter } from '../http/rate-limiter.js';
import type { PriceSnapshot } from './prices/price-snapshot.js';

/** What the snapshot route needs. */
export interface SnapshotRouteDeps {
  snapshot: PriceSnapshot;
  limiter: RollingWindowLimiter;
  clock: Clock;
}

/** Headers of the snapshot's 200 and 304. */
const SNAPSHOT_HEADERS = {
  ETag: z.string().meta({ description: 'strong ETag of the file; send it back as If-None-Match' }),
  'Last-Modified': z.string().meta({ description: 'when the prices or counts last changed (HTTP date)' }),
  'X-Generated-At': timestampSchema.meta({
    description: 'when the snapshot was last rebuilt (ISO 8601 UTC)',
  }),
  'Cache-Control': z.literal('no-cache').meta({ description: 'revalidate with If-None-Match before reuse' }),
};

/** Registers the snapshot route. */
export function registerSnapshotRoutes(app: FastifyInstance, deps: SnapshotRouteDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/prices/snapshot.ndjson.gz',
    {
      config: { rate: 'none', requires: ['cs2', 'funded'] },
      schema: {
        operationId: 'getPriceSnapshot',
        summary: 'Bulk CS2 price snapshot: gzip NDJSON of price rows, with a strong ETag',
        description:
          'Each line is a PriceRow. Rebuilt once a minute. Send If-None-Match with the last ETag: a 304 never counts against the limit; each 200 counts, one per key per rolling minute. A HEAD answers the headers of the download without its body and never counts.',
        tags: ['market'],
        headers: z.looseObject({ 'if-none-match': z.string().max(512).optional() }),
        response: {
          200: documentedResponse({
            description: 'gzip-compressed NDJSON, one PriceRow per line',
            body: { mediaType: 'application/gzip', schema: z.string().meta({ format: 'binary' }) },
            headers: SNAPSHOT_HEADERS,
          }),
          304: documentedResponse({
            description: 'not modified since the ETag sent; no body',
            headers: SNAPSHOT_HEADERS,
          }),
          ...errorResponses(
            ...AUTH_ERRORS,
            'insufficient_settled_balance',
            'snapshot_rate_limited',
            'price_updating',
          ),
        },
      },
    },
    async (request, reply) => {
      const { key } = authOf(request);
      const file = deps.snapshot.file;
      if (!file)
        throw new ApiError('price_updating', 'the first snapshot is being built; retry in a few seconds');
      void reply.headers({
        etag: file.etag,
        'last-modified': new Date(file.changedAt).toUTCString(),
        'x-generated-at': new Date(file.generatedAt).toISOString(),
        'cache-control': 'no-cache',
      });
      if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
      // A HEAD downloads nothing (Fastify answers it from this handler without the body), so it never counts.
      if (request.method !== 'HEAD')
        enforceRateLimit(deps.limiter, `key:${key.id}`, 'snapshot', deps.clock.now());
      return reply.type('application/gzip').send(file.body as never);
    },
  );
}

/** True when an If-None-Match header names the ETag (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}
