/**
 * `POST /report` of the control endpoint: builds a market report inside the daemon (which alone
 * may open the warehouse while it runs), answering NDJSON progress lines, then the summary.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { buildReport, type ReportProgress, type Warehouse } from '../../warehouse/index.js';
import { answerNdjson } from './ndjson-answer.js';
import { CONTROL_PATHS, reportRequestSchema } from './protocol.js';

/** Registers `POST /report`. */
export function registerReportRoute(app: FastifyInstance, warehouse: Warehouse): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(CONTROL_PATHS.report, { schema: { body: reportRequestSchema } }, (request, reply) => {
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
