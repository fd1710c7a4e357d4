/**
 * `POST /report` of the control endpoint: builds a market report inside the daemon (which alone
 * may open the warehouse while it runs), answering NDJSON progress lines, then the summary.
 */
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  buildReport,
  isWindow,
  type ReportProgress,
  type ReportSummary,
  type Warehouse,
} from '../../warehouse/index.js';
import { answerNdjson, type NdjsonLine } from './ndjson-answer.js';

/** The body of `POST /report`: the options of a report, with the folder given as an absolute path. */
export const reportRequestSchema = z.object({
  out: z.string().refine(isAbsolute, 'out must be an absolute path (the daemon may run in another folder)'),
  window: z
    .string()
    .refine(isWindow, 'window must be minutes, hours or days, e.g. 7d, 24h or 90m')
    .optional(),
  items: z.number().int().min(1).max(50).optional(),
});
export type ReportRequest = z.infer<typeof reportRequestSchema>;

/** One line of the answer (see ndjson-answer.ts). */
export type ReportLine = NdjsonLine<ReportProgress, ReportSummary>;

/** Registers `POST /report`. */
export function registerReportRoute(app: FastifyInstance, warehouse: Warehouse): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/report', { schema: { body: reportRequestSchema } }, (request, reply) => {
      const { out, window, items } = request.body;
      return answerNdjson(
        reply,
        (onProgress: (progress: ReportProgress) => void) =>
          buildReport(warehouse, {
            out,
            onProgress,
            ...(window ? { window } : {}),
            ...(items ? { items } : {}),
          }),
        // The body was checked above: what fails now is the build, not the request.
        () => false,
      );
    });
}
