/**
 * `GET /metrics` of the service, in Prometheus' text format, behind a token of its own (not an
 * API key: a scraper is no account): `Authorization: Bearer <token>`, else 401 `invalid_api_key`.
 */
import type { FastifyInstance } from 'fastify';
import { bearerTokenOf, isSameToken } from '../../shared/bearer-token.js';
import { refuse } from '../core/refuse.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Serves `metrics` at `GET /metrics` to callers that send `token`. */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServiceMetrics, token: string): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!isSameToken(bearerTokenOf(request.headers.authorization), token))
      throw refuse(
        'invalid_api_key',
        'send the metrics token (--metrics-token) as Authorization: Bearer <token>',
      );
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
