/**
 * `POST /models/run` and `POST /models/test` of the control endpoint: model builds and model
 * tests, run inside the daemon (which alone may open the warehouse while it runs). Each answers
 * one JSON body.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Warehouse } from '../../warehouse/index.js';
import { failedWith } from './errors.js';
import {
  CONTROL_PATHS,
  type ModelsRunAnswer,
  type ModelsTestAnswer,
  modelsRequestSchema,
} from './protocol.js';

/** Registers the model routes. */
export function registerModelRoutes(app: FastifyInstance, warehouse: Warehouse): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    CONTROL_PATHS.modelsRun,
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
    CONTROL_PATHS.modelsTest,
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
