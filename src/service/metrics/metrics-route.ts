/**
 * `GET /metrics` of the service, in Prometheus' text format, behind a token of its own (not an
 * API key: a scraper is no account): `Authorization: Bearer <token>`, else 401 `invalid_api_key`.
 * A wrong or missing token counts towards the address ban as a bad key does, so it cannot be
 * guessed without limit, and a banned address is refused here too.
 */
import type { FastifyInstance } from 'fastify';
import { bearerTokenOf, isSameToken } from '../../shared/bearer-token.js';
import { refuse } from '../core/refuse.js';
import { type AuthenticateOptions, checkToken } from '../http/authenticate.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Serves `metrics` at `GET /metrics` to callers that send `token`, under the ban of `auth`. */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  token: string,
  auth: Pick<AuthenticateOptions, 'guard' | 'clock'>,
): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkToken(request, auth, isSameToken(bearerTokenOf(request.headers.authorization), token), () =>
      refuse('invalid_api_key', 'send the metrics token (--metrics-token) as Authorization: Bearer <token>'),
    );
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
