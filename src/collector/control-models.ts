/**
 * `POST /models/run`, `POST /models/test` and `POST /sql` of the control endpoint: model builds,
 * model tests, and read-only queries (`?out=` writes the rows to parquet), run inside the daemon
 * (which alone may open the warehouse while it runs). Each answers one JSON body.
 */
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModelRunSummary, ModelTestResult, Warehouse } from '../warehouse/index.js';
import { failedWith } from './control-errors.js';
import { queryReadOnly, queryReadOnlyToParquet } from './read-only-query.js';

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

/** The answer of `POST /sql`: the rows, or with `?out=` how many were written to that file. */
export type SqlAnswer = { rows: Record<string, unknown>[] } | { rows: number; out: string };

const sqlQuerySchema = z.object({
  out: z
    .string()
    .refine(isAbsolute, 'must be an absolute path (the daemon may run in another folder)')
    .optional(),
});

/** Registers the model and SQL routes. */
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
  api.post(
    '/sql',
    {
      schema: {
        body: z.string().min(1, 'send one SQL statement as text/plain'),
        querystring: sqlQuerySchema,
      },
    },
    async (request): Promise<SqlAnswer> => {
      const { out } = request.query;
      if (out) return { rows: await queryReadOnlyToParquet(warehouse, request.body, out), out };
      return { rows: await queryReadOnly(warehouse, request.body) };
    },
  );
}
