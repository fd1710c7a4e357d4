/**
 * The protocol of the daemon's control endpoint, which the endpoint and the `market` command both
 * import: where a running daemon is found (the control file), its paths, the requests they take,
 * the answers they give and the error codes. Types, schemas and constants only: importing it loads
 * neither Fastify nor DuckDB, so `market status` starts light.
 */
import { isAbsolute } from 'node:path';
import type { Json } from '@duckdb/node-api';
import { z } from 'zod';
import type {
  ExportProgress,
  ExportSummary,
  LakeMoveSummary,
  LakeStatus,
  ModelRunSummary,
  ModelTestResult,
  ReportProgress,
  ReportSummary,
} from '../../warehouse/index.js';
import { isWindow } from '../../warehouse/report/report-window.js';
import type { SourceStatus } from '../source-status.js';

/** What the control file holds: enough for the owner's CLI to find and enter the endpoint. */
export interface ControlFile {
  pid: number;
  port: number;
  /** Sent as `Authorization: Bearer <token>`; new on every run. */
  token: string;
}

/** Where a daemon's control address is written for a warehouse file. */
export function controlFileOf(warehousePath: string): string {
  return `${warehousePath}.collector.json`;
}

/** How long `market status` waits for `GET /status` before it says the collector is not answering. */
export const STATUS_DEADLINE_MS = 5_000;

/** The paths of the endpoint, on `http://127.0.0.1:<port>`. */
export const CONTROL_PATHS = {
  /** `GET`: a {@link StatusAnswer}. */
  status: '/status',
  /** `POST` one statement as text/plain (query: {@link SqlQuery}): NDJSON {@link SqlLine}s. */
  sql: '/sql',
  /** `POST` a {@link ModelsRequest}: a {@link ModelsRunAnswer}. */
  modelsRun: '/models/run',
  /** `POST` a {@link ModelsRequest}: a {@link ModelsTestAnswer}. */
  modelsTest: '/models/test',
  /** `POST` an {@link ExportRequest}: NDJSON {@link ExportLine}s. */
  export: '/export',
  /** `POST` a {@link ReportRequest}: NDJSON {@link ReportLine}s. */
  report: '/report',
  /** `POST` a {@link LakeMoveRequest}: a {@link LakeMoveAnswer}. */
  lakeMove: '/lake/move',
  /** `GET`: Prometheus' text format (also opened by a metrics token that outlives runs). */
  metrics: '/metrics',
} as const;

/** The codes the endpoint answers with, and their HTTP status. */
export const CONTROL_ERROR_STATUS = {
  invalid_request: 400,
  not_read_only: 400,
  query_failed: 400,
  models_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  query_timeout: 408,
  body_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  stopping: 503,
} as const;

/** A code of {@link CONTROL_ERROR_STATUS}. */
export type ControlErrorCode = keyof typeof CONTROL_ERROR_STATUS;

/** The body of every error answer. */
export interface ControlErrorBody {
  code: ControlErrorCode;
  detail: string;
}

/** The answer of `GET /status`. */
export interface StatusAnswer {
  pid: number;
  /** The upstream's clock minus the collector's, in seconds, as measured; null before an answer. */
  upstreamOffsetSeconds?: number | null;
  sources: SourceStatus[];
  /** What the lake holds: days, files, bytes, rows, and the instant before which every row is in it. */
  lake?: LakeStatus;
  /** The folder (absolute) whose SQL models the collector builds, tests and exports. */
  modelsDir?: string;
}

/** The query string of `POST /sql`. */
export const sqlQuerySchema = z.object({
  /** This query's deadline, instead of the daemon's. */
  timeoutMs: z.coerce.number().int().positive().max(86_400_000).optional(),
});
export type SqlQuery = z.infer<typeof sqlQuerySchema>;

/** A column of a query's answer, with its DuckDB type, e.g. `DECIMAL(18,2)`. */
export interface QueryColumn {
  name: string;
  type: string;
}

/**
 * One line of the answer of `POST /sql`: a `{"columns": […]}` line, one JSON array per row, then
 * `{"end": {"rows": n}}`, or an `{"error": {code, detail}}` line when the query ends early.
 */
export type SqlLine =
  | { columns: readonly QueryColumn[] }
  /** A row: its values in the order of the columns. */
  | Json[]
  | { end: { rows: number } }
  | { error: ControlErrorBody };

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

/**
 * One line of an answer of long work: a `{"progress": …}` line per step, then `{"result": …}` or
 * `{"error": "…", "input": true|false}`; blank lines in between keep the connection alive.
 */
export type NdjsonLine<P, R> =
  | { progress: P }
  | { result: R }
  /** `input`: the request was bad (nothing was written). */
  | { error: string; input: boolean };

/** The body of `POST /export`: the options of an export, with the folder given as an absolute path. */
export const exportRequestSchema = z.object({
  to: z.string().refine(isAbsolute, 'to must be an absolute path (the daemon may run in another folder)'),
  models: z.array(z.string()).optional(),
  since: z.string().optional(),
  until: z.string().optional(),
});
export type ExportRequest = z.infer<typeof exportRequestSchema>;

/** One line of the answer of `POST /export`. */
export type ExportLine = NdjsonLine<ExportProgress, ExportSummary>;

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

/** One line of the answer of `POST /report`. */
export type ReportLine = NdjsonLine<ReportProgress, ReportSummary>;

/** The body of `POST /lake/move`: every row landed before `before` (ISO 8601 with its offset) moves. */
export const lakeMoveRequestSchema = z.object({
  before: z.iso.datetime({ offset: true, message: 'before is an ISO 8601 time, e.g. 2026-11-20T00:00:00Z' }),
});
export type LakeMoveRequest = z.infer<typeof lakeMoveRequestSchema>;

/** The answer of `POST /lake/move`. */
export interface LakeMoveAnswer {
  summary: LakeMoveSummary;
}
