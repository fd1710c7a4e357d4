/** GET /health (no key): the probe, with the price list's group count and age. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { healthSchema } from '../../contract/market.js';
import type { Clock } from '../core/clock.js';
import { errorResponses } from '../http/openapi.js';
import type { PriceList } from './prices/price-list.js';

/** Registers the status routes. */
export function registerStatusRoutes(app: FastifyInstance, prices: PriceList, clock: Clock): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/health',
    {
      config: { access: 'public', rate: 'none' },
      schema: {
        summary: 'Health probe',
        tags: ['status'],
        response: { 200: healthSchema, ...errorResponses('too_many_failed_auth') },
      },
    },
    async () => ({
      status: 'ok',
      groups: prices.groupCount(),
      price_list_age_seconds: Math.max(0, Math.floor((clock.now() - prices.generatedAt()) / 1000)),
    }),
  );
}
