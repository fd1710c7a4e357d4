/**
 * `POST /export` of the control endpoint: runs a parquet export inside the daemon (which alone may
 * open the warehouse while it runs) and streams NDJSON: progress lines, then a result or an error line.
 */
import { isAbsolute } from 'node:path';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type ExportProgress,
  type ExportSummary,
  exportModels,
  isExportInputError,
  type Warehouse,
} from '../warehouse/index.js';

/** The body of `POST /export`: the options of an export, with the folder given as an absolute path. */
export const exportRequestSchema = z.object({
  to: z.string().refine(isAbsolute, 'to must be an absolute path (the daemon may run in another folder)'),
  models: z.array(z.string()).optional(),
  since: z.string().optional(),
  until: z.string().optional(),
});
export type ExportRequest = z.infer<typeof exportRequestSchema>;

/**
 * One line of the answer. Blank lines may come between them while a long step runs (they keep
 * the connection alive); skip them.
 */
export type ExportLine =
  | { progress: ExportProgress }
  | { result: ExportSummary }
  /** `input`: the request was bad (unknown model, malformed day, model not built), nothing was written. */
  | { error: string; input: boolean };

/** Between keep-alive blank lines while no progress line is due. */
const KEEPALIVE_MS = 15_000;

/** Registers `POST /export`. */
export function registerExportRoute(app: FastifyInstance, warehouse: Warehouse): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/export', { schema: { body: exportRequestSchema } }, (request, reply) => {
      const { to, models, since, until } = request.body;
      const stream = new PassThrough();
      const send = (line: ExportLine) => stream.write(`${JSON.stringify(line)}\n`);
      const keepalive = setInterval(() => stream.write('\n'), KEEPALIVE_MS);
      void exportModels(warehouse, {
        to,
        onProgress: (progress) => send({ progress }),
        ...(models ? { models } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
      })
        .then(
          (result) => send({ result }),
          (error: unknown) =>
            send({
              error: error instanceof Error ? error.message : String(error),
              input: isExportInputError(error),
            }),
        )
        .finally(() => {
          clearInterval(keepalive);
          stream.end();
        });
      return reply.type('application/x-ndjson').send(stream);
    });
}
