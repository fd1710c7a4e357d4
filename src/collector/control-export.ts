/**
 * `POST /export` of the control endpoint: runs a parquet export inside the daemon (which alone may
 * open the warehouse while it runs) and streams NDJSON: progress lines, then a result or an error line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import {
  type ExportOptions,
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

/** Reads the request's JSON options, runs the export, and streams its progress and outcome. */
export function handleExport(warehouse: Warehouse, request: IncomingMessage, response: ServerResponse): void {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const options = parseRequest(body);
    if (typeof options === 'string') {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: options }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (line: ExportLine) => response.write(`${JSON.stringify(line)}\n`);
    const keepalive = setInterval(() => response.write('\n'), KEEPALIVE_MS);
    void exportModels(warehouse, { ...options, onProgress: (progress) => send({ progress }) })
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
        response.end();
      });
  });
}

/** The export options of a request body, or what is wrong with it. */
function parseRequest(body: string): ExportOptions | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'the body must be JSON export options, e.g. {"to": "/abs/exports", "since": "2026-11-01"}';
  }
  const parsed = exportRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `invalid ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`;
  }
  const { to, models, since, until } = parsed.data;
  return {
    to,
    ...(models ? { models } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}
