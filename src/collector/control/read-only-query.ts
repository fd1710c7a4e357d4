/**
 * Ad hoc SQL through the daemon (the analysts' door), read-only as DuckDB itself sees it: DuckDB's
 * own parser must serialize the text as exactly one SELECT (`json_serialize_sql` refuses every
 * other statement: COPY, ATTACH, SET, RESET, EXPLAIN, PRAGMA, CALL, INSTALL, LOAD, writes), the
 * prepared statement must be a SELECT, and it runs in a read-only transaction. What a SELECT could
 * still reach (files, settings, extensions) is fenced by the warehouse's lock-down (lock-down.ts).
 * Rows stream a chunk at a time, and DuckDB has a deadline for each (see SilenceDeadline).
 */
import {
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBResult,
  type Json,
  StatementType,
} from '@duckdb/node-api';
import { jsonSafeConverter, type Warehouse } from '../../warehouse/index.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from '../collector-options.js';
import { ControlError, failedWith } from './errors.js';
import type { QueryColumn } from './protocol.js';

/** The answer of a query being read. */
export interface RowStream {
  readonly columns: readonly QueryColumn[];
  /**
   * The rows, a DuckDB chunk (up to 2,048) at a time, with JSON-safe values; throws a ControlError
   * (`query_timeout`, `stopping`, `query_failed`) when the query ends early.
   */
  chunks(): AsyncGenerator<Json[][]>;
  /** Interrupts the query, e.g. when its reader went away. */
  cancel(): void;
}

const REFUSAL =
  'only a single read-only query (SELECT, WITH, FROM, VALUES, SHOW, DESCRIBE, SUMMARIZE) runs through the collector';

/** The door: read-only queries on the warehouse, each with a deadline, all interrupted on stop. */
export class QueryDoor {
  private readonly running = new Set<(reason: ControlError) => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly warehouse: Warehouse,
    /** @default {@link DEFAULT_QUERY_TIMEOUT_MS} */
    private readonly timeoutMs = DEFAULT_QUERY_TIMEOUT_MS,
  ) {}

  /**
   * Checks and starts `sql`, then hands its rows to `use` (which must read them to the end or
   * cancel). A refused or unparsable statement throws a ControlError before `use` is called.
   */
  run<T>(sql: string, use: (rows: RowStream) => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    if (this.stopped) return Promise.reject(stoppingError());
    const run = this.warehouse.withConnection(async (connection) => {
      await connection.run('BEGIN TRANSACTION READ ONLY');
      try {
        await refuseUnlessOneSelect(connection, sql);
        const statement = await prepareSelect(connection, sql);
        return await streamStatement(connection, statement, { timeoutMs, watch: this.watch }, use);
      } finally {
        await connection.run('ROLLBACK').catch(() => undefined);
      }
    });
    const settled = run.catch(() => undefined);
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return run;
  }

  /**
   * Interrupts every query in progress (they end with `stopping`), refuses new ones, and resolves
   * once each has let go of its connection (the warehouse may close then).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const interrupt of this.running) interrupt(stoppingError());
    await Promise.all(this.inFlight);
  }

  private readonly watch = (interrupt: (reason: ControlError) => void) => {
    this.running.add(interrupt);
    if (this.stopped) interrupt(stoppingError());
    return () => this.running.delete(interrupt);
  };
}

/**
 * Runs `sql` (any statement) on `connection` and hands its rows to `use`, interrupting it after
 * `timeoutMs`: for the warehouse opened read-only by the CLI, where no door is needed.
 */
export async function streamQuery<T>(
  connection: DuckDBConnection,
  sql: string,
  timeoutMs: number,
  use: (rows: RowStream) => Promise<T>,
): Promise<T> {
  let statement: DuckDBPreparedStatement;
  try {
    statement = await connection.prepare(sql);
  } catch (error) {
    throw failedWith('query_failed', error);
  }
  return streamStatement(connection, statement, { timeoutMs }, use);
}

/** DuckDB's parser must read `sql` as one statement that it can serialize, which only a SELECT is. */
async function refuseUnlessOneSelect(connection: DuckDBConnection, sql: string): Promise<void> {
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($sql::VARCHAR)', { sql });
  const parsed = JSON.parse(String(reader.getRows()[0]?.[0])) as {
    error: boolean;
    error_type?: string;
    error_message?: string;
    statements?: unknown[];
  };
  if (parsed.error && parsed.error_type === 'parser')
    throw new ControlError(
      'query_failed',
      `Parser Error: ${parsed.error_message ?? 'cannot parse the query'}`,
    );
  if (parsed.error) throw new ControlError('not_read_only', `${REFUSAL}; ${parsed.error_message ?? ''}`);
  if (parsed.statements?.length !== 1)
    throw new ControlError('not_read_only', `${REFUSAL}; send exactly one statement`);
}

async function prepareSelect(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let statement: DuckDBPreparedStatement;
  try {
    statement = await connection.prepare(sql);
  } catch (error) {
    throw failedWith('query_failed', error);
  }
  if (statement.statementType !== StatementType.SELECT)
    throw new ControlError('not_read_only', `${REFUSAL}; this is ${StatementType[statement.statementType]}`);
  return statement;
}

/**
 * Streams a prepared statement with a deadline on DuckDB's silence: the time to its first chunk, then
 * between chunks, never the time a reader takes (an answer of any size streams for as long as it
 * takes). `watch` registers the interrupt for a stop.
 */
async function streamStatement<T>(
  connection: DuckDBConnection,
  statement: DuckDBPreparedStatement,
  options: { timeoutMs: number; watch?: (interrupt: (reason: ControlError) => void) => () => void },
  use: (rows: RowStream) => Promise<T>,
): Promise<T> {
  let reason: ControlError | null = null;
  const interrupt = (why: ControlError) => {
    reason ??= why;
    connection.interrupt();
  };
  const deadline = new SilenceDeadline(options.timeoutMs, interrupt);
  const unwatch = options.watch?.(interrupt);
  let result: DuckDBResult | undefined;
  try {
    try {
      result = await deadline.bound(() => statement.stream());
    } catch (error) {
      throw reason ?? failedWith('query_failed', error);
    }
    const streamed = result;
    return await use({
      columns: streamed.columnNames().map((name, i) => ({ name, type: streamed.columnType(i).toString() })),
      chunks: () => readChunks(streamed, deadline, () => reason),
      cancel: () => interrupt(new ControlError('query_failed', 'the reader of the answer went away')),
    });
  } finally {
    deadline.clear();
    unwatch?.();
    // A result left half read must end before its connection closes: DuckDB would free the query
    // under it, and the result's finalizer would then touch freed memory.
    if (result) await endResult(connection, result);
    statement.destroySync();
  }
}

/** Interrupts a query when DuckDB has given nothing for `timeoutMs` while it was asked for rows. */
class SilenceDeadline {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly interrupt: (reason: ControlError) => void,
  ) {}

  /** Runs `wait` (a request to DuckDB) under the deadline. */
  async bound<T>(wait: () => Promise<T>): Promise<T> {
    this.timer = setTimeout(() => this.interrupt(this.timeoutError()), this.timeoutMs);
    try {
      return await wait();
    } finally {
      this.clear();
    }
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private timeoutError(): ControlError {
    const seconds = Math.round(this.timeoutMs / 100) / 10;
    return new ControlError(
      'query_timeout',
      `the query gave no row for ${seconds} s and was interrupted; narrow it, or give a longer --query-timeout`,
    );
  }
}

/** Interrupts what is left of a streaming result and reads it to its end (an error, at once). */
async function endResult(connection: DuckDBConnection, result: DuckDBResult): Promise<void> {
  connection.interrupt();
  try {
    // Nothing to keep: the interrupt ends the query at its next chunk (an empty one is the end).
    for (
      let chunk = await result.fetchChunk();
      chunk && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    );
  } catch {
    // Interrupted, as asked.
  }
}

async function* readChunks(
  result: DuckDBResult,
  deadline: SilenceDeadline,
  reason: () => ControlError | null,
): AsyncGenerator<Json[][]> {
  for (;;) {
    const early = reason();
    if (early) throw early;
    let chunk: Awaited<ReturnType<DuckDBResult['fetchChunk']>>;
    try {
      chunk = await deadline.bound(() => result.fetchChunk());
    } catch (error) {
      throw reason() ?? failedWith('query_failed', error);
    }
    // An interrupted stream may end like a whole one: the reason tells them apart.
    if (!chunk || chunk.rowCount === 0) {
      const cut = reason();
      if (cut) throw cut;
      return;
    }
    yield chunk.convertRows(jsonSafeConverter) as Json[][];
  }
}

function stoppingError(): ControlError {
  return new ControlError('stopping', 'the collector is stopping; the query was interrupted');
}
