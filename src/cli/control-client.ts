/**
 * The one client of a running collector's control endpoint (found through the control file beside
 * the warehouse, which also holds the run's token, sent with every request), used by `market
 * status`, and by `sql`, `models`, `export` and `report` as their {@link WarehouseWork} while a
 * collector runs. An error answer `{ code, detail }` becomes a
 * CliError: exit code 2 for a request the collector refused, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import type { Json } from '@duckdb/node-api';
import { Agent, type Dispatcher, request } from 'undici';
import {
  CONTROL_PATHS,
  type ControlErrorBody,
  type ControlFile,
  controlFileOf,
  type ExportRequest,
  type LakeMoveAnswer,
  type LakeMoveRequest,
  type ModelsRequest,
  type ModelsRunAnswer,
  type ModelsTestAnswer,
  type NdjsonLine,
  type QueryColumn,
  type ReportRequest,
  type SqlLine,
  STATUS_DEADLINE_MS,
  type StatusAnswer,
} from '../collector/control/protocol.js';
import type {
  ExportProgress,
  ExportSummary,
  LakeMoveSummary,
  ModelRunSummary,
  ModelTestResult,
  ReportProgress,
  ReportSummary,
} from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import type { RowsToPrint } from './sql-output.js';
import type { WarehouseWork } from './warehouse-work.js';

/** The rows of a query as they arrive: its columns, then its rows a batch at a time. */
export interface QueryAnswer {
  columns: readonly QueryColumn[];
  /** Rows (values in the order of the columns); throws a CliError when the query ends early. */
  batches: AsyncGenerator<Json[][]>;
}

/** Rows per batch of a {@link QueryAnswer}. */
const BATCH_ROWS = 2048;

/**
 * Model builds and exports answer when done, and a query may wait on its first row: no deadline
 * of the client's own cuts them (the collector keeps the deadline of queries).
 */
const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/** Talks to the collector listening on 127.0.0.1:`port`. */
export class ControlClient implements WarehouseWork {
  constructor(
    /** The control endpoint's port on 127.0.0.1. */
    readonly port: number,
    /** The run's token, from the control file. */
    private readonly token: string,
    /** The collector's process id, from the control file. */
    readonly pid?: number,
  ) {}

  /** The client of the live collector on this warehouse, or null when none runs. */
  static async find(warehouse: string): Promise<ControlClient | null> {
    try {
      const control = JSON.parse(await readFile(controlFileOf(warehouse), 'utf8')) as ControlFile;
      process.kill(control.pid, 0);
      return new ControlClient(control.port, control.token, control.pid);
    } catch {
      return null;
    }
  }

  /**
   * The collector's pid and the status of each source, within `deadlineMs`: a daemon that is alive
   * but frozen (SIGSTOP, a blocked event loop) accepts the connection and never answers, and a
   * monitor must not wait with it. Past the deadline, or when the connection fails, it throws a
   * CliError (exit code 2) saying the collector is not answering.
   */
  async status(deadlineMs = STATUS_DEADLINE_MS): Promise<StatusAnswer> {
    const signal = AbortSignal.timeout(deadlineMs);
    try {
      const response = await this.send('GET', CONTROL_PATHS.status, undefined, signal);
      if (response.statusCode < 400) return (await response.body.json()) as StatusAnswer;
      throw await refusal(response, 'GET', CONTROL_PATHS.status);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const pid = this.pid === undefined ? '' : ` (pid ${this.pid})`;
      const why = signal.aborted ? `no answer within ${deadlineMs / 1000}s` : (error as Error).message;
      throw new CliError(`the collector is not answering${pid} on port ${this.port}: ${why}`, 2);
    }
  }

  /**
   * Starts one read-only query (interrupted by the collector after `timeoutMs`, or its own
   * deadline) and returns its columns with its rows to read as they arrive.
   */
  async streamQuery(sql: string, timeoutMs?: number): Promise<QueryAnswer> {
    const path = timeoutMs === undefined ? CONTROL_PATHS.sql : `${CONTROL_PATHS.sql}?timeoutMs=${timeoutMs}`;
    const lines = readLines((await this.request('POST', path, sql)).body);
    const first = await nextLine(lines);
    if (first === null || !('columns' in first))
      throw new CliError('the collector answered the query without its columns; see its log', 1);
    return { columns: first.columns, batches: readBatches(lines) };
  }

  /** One read-only query, its rows handed to `use` as they arrive. */
  async queryRows<T>(
    sql: string,
    timeoutMs: number | undefined,
    use: (rows: RowsToPrint) => Promise<T>,
  ): Promise<T> {
    return use(await this.streamQuery(sql, timeoutMs));
  }

  /** The rows of one read-only query written by this process to the parquet file `out`; how many. */
  async queryToParquet(sql: string, out: string, timeoutMs: number | undefined): Promise<number> {
    // Loaded here: DuckDB writes the file, and `market status` never needs it.
    const { writeRowsToParquet } = await import('./rows-to-parquet.js');
    return writeRowsToParquet(await this.streamQuery(sql, timeoutMs), out);
  }

  /** The rows of one read-only query, as objects (for answers that fit in memory). */
  async query(sql: string): Promise<Record<string, Json>[]> {
    const { columns, batches } = await this.streamQuery(sql);
    const rows: Record<string, Json>[] = [];
    for await (const batch of batches)
      for (const row of batch) rows.push(Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null])));
    return rows;
  }

  /** Builds the selected models (all with none). */
  async runModels(request: ModelsRequest): Promise<ModelRunSummary> {
    const answer = (await (
      await this.request('POST', CONTROL_PATHS.modelsRun, request)
    ).body.json()) as ModelsRunAnswer;
    return answer.summary;
  }

  /** Moves every row landed before the request's instant into the collector's lake. */
  async moveToLake(request: LakeMoveRequest): Promise<LakeMoveSummary> {
    const answer = (await (await this.request('POST', '/lake/move', request)).body.json()) as LakeMoveAnswer;
    return answer.summary;
  }

  /** Runs the tests of the selected models (all with none). */
  async testModels(request: ModelsRequest): Promise<ModelTestResult[]> {
    const answer = (await (
      await this.request('POST', CONTROL_PATHS.modelsTest, request)
    ).body.json()) as ModelsTestAnswer;
    return answer.results;
  }

  /** Runs an export in the collector, following its NDJSON progress lines to the result line. */
  export(request: ExportRequest, onProgress: (progress: ExportProgress) => void): Promise<ExportSummary> {
    return this.follow<ExportProgress, ExportSummary>(CONTROL_PATHS.export, 'export', request, onProgress);
  }

  /** Builds a report in the collector, following its NDJSON progress lines to the result line. */
  report(request: ReportRequest, onProgress: (progress: ReportProgress) => void): Promise<ReportSummary> {
    return this.follow<ReportProgress, ReportSummary>(CONTROL_PATHS.report, 'report', request, onProgress);
  }

  /** Posts `request` to an NDJSON route (see NdjsonLine) and follows it to its result. */
  private async follow<P, R>(
    path: string,
    what: string,
    request: unknown,
    onProgress: (progress: P) => void,
  ): Promise<R> {
    const response = await this.request('POST', path, request);
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
  private async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Dispatcher.ResponseData<unknown>> {
    let response: Dispatcher.ResponseData<unknown>;
    try {
      response = await this.send(method, path, body);
    } catch (error) {
      throw new CliError(`the collector on port ${this.port} did not answer: ${(error as Error).message}`, 1);
    }
    if (response.statusCode < 400) return response;
    throw await refusal(response, method, path);
  }

  /** Sends a request with the run's token (text as text/plain, anything else as JSON); any answer. */
  private send(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData<unknown>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    const options: Parameters<typeof request>[1] = { method, headers, dispatcher: patient };
    if (signal) options.signal = signal;
    if (body !== undefined) {
      const text = typeof body === 'string';
      options.body = text ? body : JSON.stringify(body);
      headers['content-type'] = text ? 'text/plain; charset=utf-8' : 'application/json';
    }
    return request(`http://127.0.0.1:${this.port}${path}`, options);
  }
}

/** The CliError of an error answer `{ code, detail }`: exit code 2 for a refused request, 1 otherwise. */
async function refusal(
  response: Dispatcher.ResponseData<unknown>,
  method: string,
  path: string,
): Promise<CliError> {
  const answer = (await response.body.json().catch(() => ({}))) as Partial<ControlErrorBody>;
  return new CliError(
    answer.detail ?? `the collector answered ${response.statusCode} to ${method} ${path}`,
    response.statusCode < 500 ? 2 : 1,
  );
}

/** The next JSON line of an answer (blank keep-alive lines skipped), or null at its end. */
async function nextLine(lines: AsyncGenerator<string>): Promise<SqlLine | null> {
  for (;;) {
    const next = await lines.next();
    if (next.done) return null;
    if (next.value.trim()) return JSON.parse(next.value) as SqlLine;
  }
}

/** The rows of a `POST /sql` answer after its columns line, in batches, to its end line. */
async function* readBatches(lines: AsyncGenerator<string>): AsyncGenerator<Json[][]> {
  let batch: Json[][] = [];
  try {
    for (;;) {
      const line = await nextLine(lines);
      if (line === null)
        throw new CliError('the collector closed the connection before the query ended; see its log', 1);
      if (Array.isArray(line)) {
        batch.push(line);
        if (batch.length < BATCH_ROWS) continue;
        yield batch;
        batch = [];
      } else if ('end' in line) {
        if (batch.length > 0) yield batch;
        return;
      } else if ('error' in line) {
        throw new CliError(line.error.detail, 1);
      }
    }
  } finally {
    // Stops reading (and so the collector's query) when the rows are left unread.
    await lines.return(undefined);
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
