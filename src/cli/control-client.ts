/**
 * The one client of a running collector's control endpoint (found through the address file beside
 * the warehouse), used by `market status`, `sql`, `models`, `export` and `report`. An error answer
 * `{ code, detail }` becomes a CliError: exit code 2 for a request the collector refused, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { controlFileOf, type StatusAnswer } from '../collector/control.js';
import type { ControlErrorBody } from '../collector/control-errors.js';
import type { ExportRequest } from '../collector/control-export.js';
import type {
  ModelsRequest,
  ModelsRunAnswer,
  ModelsTestAnswer,
  SqlAnswer,
} from '../collector/control-models.js';
import type { ReportRequest } from '../collector/control-report.js';
import type { NdjsonLine } from '../collector/ndjson-answer.js';
import type {
  ExportProgress,
  ExportSummary,
  ModelRunSummary,
  ModelTestResult,
  ReportProgress,
  ReportSummary,
} from '../warehouse/index.js';
import { CliError } from './cli-error.js';

/** Talks to the collector listening on 127.0.0.1:`port`. */
export class ControlClient {
  constructor(
    /** The control endpoint's port on 127.0.0.1. */
    readonly port: number,
  ) {}

  /** The client of the live collector on this warehouse, or null when none runs. */
  static async find(warehouse: string): Promise<ControlClient | null> {
    try {
      const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as {
        pid: number;
        port: number;
      };
      process.kill(control.pid, 0);
      return new ControlClient(control.port);
    } catch {
      return null;
    }
  }

  /** The collector's pid and the status of each source. */
  async status(): Promise<StatusAnswer> {
    return (await this.request('GET', '/status')).json() as Promise<StatusAnswer>;
  }

  /** The rows of one read-only query. */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    const answer = (await (await this.request('POST', '/sql', sql)).json()) as SqlAnswer;
    return answer.rows as Record<string, unknown>[];
  }

  /** Writes a read-only query's rows to the parquet file `out` (absolute) and returns how many. */
  async queryToParquet(sql: string, out: string): Promise<number> {
    const path = `/sql?out=${encodeURIComponent(out)}`;
    const answer = (await (await this.request('POST', path, sql)).json()) as SqlAnswer;
    return answer.rows as number;
  }

  /** Builds the selected models (all with none). */
  async runModels(request: ModelsRequest): Promise<ModelRunSummary> {
    const answer = (await (await this.request('POST', '/models/run', request)).json()) as ModelsRunAnswer;
    return answer.summary;
  }

  /** Runs the tests of the selected models (all with none). */
  async testModels(request: ModelsRequest): Promise<ModelTestResult[]> {
    const answer = (await (await this.request('POST', '/models/test', request)).json()) as ModelsTestAnswer;
    return answer.results;
  }

  /** Runs an export in the collector, following its NDJSON progress lines to the result line. */
  export(request: ExportRequest, onProgress: (progress: ExportProgress) => void): Promise<ExportSummary> {
    return this.follow<ExportProgress, ExportSummary>('/export', 'export', request, onProgress);
  }

  /** Builds a report in the collector, following its NDJSON progress lines to the result line. */
  report(request: ReportRequest, onProgress: (progress: ReportProgress) => void): Promise<ReportSummary> {
    return this.follow<ReportProgress, ReportSummary>('/report', 'report', request, onProgress);
  }

  /** Posts `request` to an NDJSON route (see ndjson-answer.ts) and follows it to its result. */
  private async follow<P, R>(
    path: string,
    what: string,
    request: unknown,
    onProgress: (progress: P) => void,
  ): Promise<R> {
    const response = await this.request('POST', path, request);
    if (!response.body) throw new CliError(`the collector answered the ${what} without a body`, 1);
    for await (const line of readLines(response.body)) {
      if (!line.trim()) continue;
      const message = JSON.parse(line) as NdjsonLine<P, R>;
      if ('progress' in message) onProgress(message.progress);
      else if ('result' in message) return message.result;
      else throw new CliError(message.error, message.input ? 2 : 1);
    }
    throw new CliError(`the collector closed the connection before the ${what} ended; see its log`, 1);
  }

  /** Sends a request (text as text/plain, anything else as JSON) and returns a successful response. */
  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      const text = typeof body === 'string';
      init.body = text ? body : JSON.stringify(body);
      init.headers = { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json' };
    }
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${this.port}${path}`, init);
    } catch (error) {
      throw new CliError(`the collector on port ${this.port} did not answer: ${(error as Error).message}`, 1);
    }
    if (response.ok) return response;
    const answer = (await response.json().catch(() => ({}))) as Partial<ControlErrorBody>;
    throw new CliError(
      answer.detail ?? `the collector answered ${response.status} to ${method} ${path}`,
      response.status < 500 ? 2 : 1,
    );
  }
}

/** The text lines of a byte stream. */
async function* readLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    yield* lines;
  }
  if (buffered) yield buffered;
}
