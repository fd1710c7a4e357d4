/**
 * `POST /lake/move` of the control endpoint: a move of the rows landed before an instant into the
 * lake, run inside the daemon (which alone may open the warehouse while it runs), answered with
 * one JSON body.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isLakeInputError, type Warehouse } from '../../warehouse/index.js';
import { failedWith } from './errors.js';
import { CONTROL_PATHS, type LakeMoveAnswer, lakeMoveRequestSchema } from './protocol.js';

/** Registers the lake's route. */
export function registerLakeRoute(app: FastifyInstance, warehouse: Warehouse): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      CONTROL_PATHS.lakeMove,
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
