/** Sandbox operator endpoints of the market: open streams, retained event ids, and a price list rebuild. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Catalogue } from './catalogue.js';
import type { PriceList } from './prices/price-list.js';
import type { StreamRegistry } from './stream/stream-registry.js';

const eventsQuery = z.object({
  app_id: z.coerce.number().int().default(730),
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100_000).default(10_000),
});

/** What the market's sandbox routes read. */
export interface MarketSandboxDeps {
  catalogue: Catalogue;
  prices: PriceList;
  streams: StreamRegistry;
}

/** Registers the market's sandbox routes under /sandbox. */
export function registerMarketSandboxRoutes(app: FastifyInstance, deps: MarketSandboxDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  api.get('/streams', { schema: hidden }, async () => ({ open: deps.streams.snapshot() }));

  // The retained event ids of a game, for auditing what a consumer landed.
  api.get('/events', { schema: { ...hidden, querystring: eventsQuery } }, async (request) => {
    const { app_id, after, limit } = request.query;
    const log = deps.catalogue.log;
    const positions = await log.positionsOf(app_id, after, limit);
    const last = positions.at(-1);
    return {
      head: log.eventId(log.head),
      last: await log.lastEventIdOf(app_id),
      ids: positions.map((p) => log.eventId(p)),
      next_after: positions.length === limit && last !== undefined ? last : null,
    };
  });

  api.post('/prices/rebuild', { schema: hidden }, async () => {
    await deps.prices.rebuild();
    return {
      generated_at: new Date(deps.prices.generatedAt()).toISOString(),
      groups: deps.prices.groupCount(),
    };
  });
}
