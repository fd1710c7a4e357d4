/**
 * `POST /export` of the control endpoint: runs a parquet export inside the daemon (which alone may
 * open the warehouse while it runs) and streams NDJSON: progress lines, then a result or an error line.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  type ExportOptions,
  type ExportProgress,
  exportModels,
  isExportInputError,
  type Warehouse,
} from '../../warehouse/index.js';
import { ControlError } from './errors.js';
import { isInside } from './lock-down.js';
import { answerNdjson } from './ndjson-answer.js';
import { CONTROL_PATHS, type ExportRequest, exportRequestSchema } from './protocol.js';

/**
 * Registers `POST /export`, into `folders` only: the locked-down warehouse writes nowhere else
 * (see lock-down.ts).
 */
export function registerExportRoute(
  app: FastifyInstance,
  warehouse: Warehouse,
  folders: readonly string[],
): void {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(CONTROL_PATHS.export, { schema: { body: exportRequestSchema } }, (request, reply) => {
      if (!folders.some((folder) => isInside(folder, request.body.to)))
        throw new ControlError(
          'invalid_request',
          `the running collector exports only into ${folders.join(', ')} (or a folder inside); ` +
            'give one of them as --to, or stop the collector to export elsewhere',
        );
      return answerNdjson(
        reply,
        (onProgress: (progress: ExportProgress) => void) =>
          exportModels(warehouse, exportOptionsOf(request.body, onProgress)),
        isExportInputError,
      );
    });
}

/** The options of an export asked for by `request`, reporting to `onProgress`. */
export function exportOptionsOf(
  request: ExportRequest,
  onProgress: (progress: ExportProgress) => void,
): ExportOptions {
  const { to, models, since, until } = request;
  return {
    to,
    onProgress,
    ...(models ? { models } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}
