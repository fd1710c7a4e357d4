/** GET /health (no key) and GET /openapi.json (no key): the probe and the machine-readable description. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { healthSchema } from '../../../contract/market.js';
import type { ServiceContext } from '../../context.js';
import { errorResponses } from '../openapi.js';

/** Registers the status routes. */
export function registerStatusRoutes(app: FastifyInstance, context: ServiceContext): void {
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
      groups: context.prices.groupCount(),
      price_list_age_seconds: Math.max(
        0,
        Math.floor((context.clock.now() - context.prices.generatedAt()) / 1000),
      ),
    }),
  );
  api.get('/openapi.json', { config: { access: 'public', rate: 'none' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
