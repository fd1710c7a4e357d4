/**
 * `POST /lake/move` of the control endpoint: a move of the rows landed before an instant into the
 * lake, run inside the daemon (which alone may open the warehouse while it runs), answered with
 * one JSON body.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isLakeInputError, type LakeMoveSummary, type Warehouse } from '../../warehouse/index.js';
import { failedWith } from './errors.js';

/** The body of `POST /lake/move`: every row landed before `before` (ISO 8601 with its offset) moves. */
export const lakeMoveRequestSchema = z.object({
  before: z.iso.datetime({ offset: true, message: 'before is an ISO 8601 time, e.g. 2026-11-20T00:00:00Z' }),
});
export type LakeMoveRequest = z.infer<typeof lakeMoveRequestSchema>;

/** The answer of `POST /lake/move`. */
export interface LakeMoveAnswer {
  summary: LakeMoveSummary;
}

/** Registers the lake's route. */
export function registerLakeRoute(app: FastifyInstance, warehouse: Warehouse): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/lake/move',
      { schema: { body: lakeMoveRequestSchema } },
      async (request): Promise<LakeMoveAnswer> => {
        try {
          return { summary: await warehouse.moveToLake(Date.parse(request.body.before)) };
        } catch (error) {
          if (isLakeInputError(error)) throw failedWith('invalid_request', error);
          throw error;
        }
      },
    );
}
