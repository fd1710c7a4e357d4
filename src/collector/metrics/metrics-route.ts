/** `GET /metrics` of the control endpoint: the collector's instruments in Prometheus' text format. */
import type { FastifyInstance } from 'fastify';
import { CONTROL_PATHS } from '../control/protocol.js';
import type { CollectorMetrics } from './collector-metrics.js';

/** Serves `metrics` at `GET /metrics` (behind the endpoint's token, like every route). */
export function registerMetricsRoute(app: FastifyInstance, metrics: CollectorMetrics): void {
  app.get(CONTROL_PATHS.metrics, async (_request, reply) => {
    const { contentType, text } = await metrics.exposition();
    return reply.type(contentType).send(text);
  });
}
