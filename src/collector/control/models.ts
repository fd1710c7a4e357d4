/**
 * `POST /models/run` and `POST /models/test` of the control endpoint: model builds and model
 * tests, run inside the daemon (which alone may open the warehouse while it runs). Each answers
 * one JSON body.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModelRunSummary, ModelTestResult, Warehouse } from '../../warehouse/index.js';
import { failedWith } from './errors.js';

/** The body of `POST /models/run` and `POST /models/test` (optional: none means every model). */
export const modelsRequestSchema = z.object({
  select: z.array(z.string()).optional(),
  fullRefresh: z.boolean().optional(),
});
export type ModelsRequest = z.infer<typeof modelsRequestSchema>;

/** The answer of `POST /models/run`. */
export interface ModelsRunAnswer {
  summary: ModelRunSummary;
}

/** The answer of `POST /models/test`. */
export interface ModelsTestAnswer {
  results: ModelTestResult[];
}

/** Registers the model routes. */
export function registerModelRoutes(app: FastifyInstance, warehouse: Warehouse): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/models/run',
    { schema: { body: modelsRequestSchema.optional() } },
    async (request): Promise<ModelsRunAnswer> => {
      const { select = [], fullRefresh = false } = request.body ?? {};
      try {
        return { summary: await warehouse.refreshModels({ select, fullRefresh }) };
      } catch (error) {
        throw failedWith('models_failed', error);
      }
    },
  );
  api.post(
    '/models/test',
    { schema: { body: modelsRequestSchema.optional() } },
    async (request): Promise<ModelsTestAnswer> => {
      try {
        return { results: await warehouse.testModels({ select: request.body?.select ?? [] }) };
      } catch (error) {
        throw failedWith('models_failed', error);
      }
    },
  );
}
