/** Sandbox operator endpoints of the simulator: read, pause, resume or pace the market churn. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { simulatorBodySchema } from '../../contract/sandbox.js';
import type { MarketChurn } from './churn.js';

/** Registers the simulator's sandbox routes under /sandbox. */
export function registerSimulatorSandboxRoutes(app: FastifyInstance, churn: MarketChurn): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const hidden = { hide: true };

  api.get('/simulator', { schema: hidden }, async () => churn.state());

  api.post('/simulator', { schema: { ...hidden, body: simulatorBodySchema } }, async (request) => {
    const { paused, rate_per_second } = request.body;
    await churn.configure({
      ...(paused === undefined ? {} : { paused }),
      ...(rate_per_second === undefined ? {} : { ratePerSecond: rate_per_second }),
    });
    return churn.state();
  });
}
