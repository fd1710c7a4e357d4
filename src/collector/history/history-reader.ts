/**
 * How the history routes read the warehouse while the daemon writes it: as the control door does,
 * on a connection of their own in a read-only transaction, with a deadline, every read interrupted
 * when the daemon stops. An answer is bounded by its route (a page of buckets, a page of items), so
 * reading it whole keeps memory bounded by the page, never by the history.
 *
 * A few connections are kept between reads ({@link KEPT_CONNECTIONS}), each with the statements
 * prepared on it, so that a route's statement is parsed and planned once per connection rather
 * than at each read: the 90-day stats' planning was a third of its 45 ms. DuckDB binds a prepared
 * statement again when the catalog changed since (a refresh or a move recreates the views).
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import { ApiError } from '../../contract/api-error.js';
import { jsonSafeConverter, type Warehouse } from '../../warehouse/index.js';

/** Parameters of a read, bound by name (`$app_id`). */
export type ReadParams = Record<string, DuckDBValue>;

/** Connections kept between reads; a read while every one is busy opens one of its own. */
const KEPT_CONNECTIONS = 2;

/** A connection kept between reads, its prepared statements by SQL text, and how to let it go. */
interface KeptConnection {
  connection: DuckDBConnection;
  statements: Map<string, DuckDBPreparedStatement>;
  release: () => void;
}

/** Reads of the warehouse for the history routes. */
export class HistoryReader {
  private readonly interrupts = new Set<() => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly idle: KeptConnection[] = [];
  private readonly held = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly warehouse: Warehouse,
    /** Deadline of one read. @default 10_000 */
    private readonly timeoutMs = 10_000,
  ) {}

  /**
   * The rows of `sql` with JSON-safe values (DECIMAL as numbers, times as ISO 8601 UTC). Each kept
   * connection keeps a statement prepared per text: `sql` is one of the routes' constant texts,
   * every value a parameter, so the statements a connection holds stay few.
   */
  rows(sql: string, params: ReadParams): Promise<Record<string, unknown>[]> {
    if (this.stopped) return Promise.reject(stopping());
    const read = this.withKept(({ connection, statements }) =>
      this.warehouse.widened(async () => {
        let reason: ApiError | null = null;
        const interrupt = (why: ApiError) => {
          reason ??= why;
          connection.interrupt();
        };
        const onStop = () => interrupt(stopping());
        this.interrupts.add(onStop);
        const timer = setTimeout(
          () =>
            interrupt(
              new ApiError(
                'market_unavailable',
                `the history read ran longer than ${this.timeoutMs} ms; ask a shorter range`,
              ),
            ),
          this.timeoutMs,
        );
        await connection.run('BEGIN TRANSACTION READ ONLY');
        try {
          let statement = statements.get(sql);
          if (statement === undefined) {
            statement = await connection.prepare(sql);
            statements.set(sql, statement);
          }
          statement.bind(params);
          const reader = await statement.runAndReadAll();
          return reader.convertRowObjects(jsonSafeConverter) as Record<string, unknown>[];
        } catch (error) {
          throw reason ?? error;
        } finally {
          clearTimeout(timer);
          this.interrupts.delete(onStop);
          await connection.run('ROLLBACK').catch(() => undefined);
        }
      }),
    );
    const settled = read.catch(() => undefined);
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return read;
  }

  /**
   * Runs `use` on an idle kept connection, on a new one kept after it while fewer than
   * {@link KEPT_CONNECTIONS} are, or else on one of its own closed after it.
   */
  private async withKept<T>(use: (kept: KeptConnection) => Promise<T>): Promise<T> {
    let kept = this.idle.pop();
    if (kept === undefined && this.held.size < KEPT_CONNECTIONS) kept = await this.keep();
    if (kept === undefined)
      return this.warehouse.withConnection((connection) =>
        use({ connection, statements: new Map(), release() {} }),
      );
    try {
      return await use(kept);
    } finally {
      if (this.stopped) kept.release();
      else this.idle.push(kept);
    }
  }

  /**
   * A connection of the warehouse held open until {@link stop} lets it go; held idle, it leaves
   * DuckDB's threads as they are (landing runs on one), each read widening them as any long read.
   */
  private keep(): Promise<KeptConnection> {
    return new Promise((resolve, reject) => {
      const held = this.warehouse.holdConnection(
        (connection) =>
          new Promise<void>((release) => resolve({ connection, statements: new Map(), release })),
      );
      this.held.add(held);
      held.catch(reject).finally(() => this.held.delete(held));
    });
  }

  /**
   * Whether the warehouse holds `relation` (a table or a view): a fresh warehouse has no models
   * until their first build, and a history of nothing is empty, not a failure.
   */
  async has(relation: string): Promise<boolean> {
    const rows = await this.rows(
      `SELECT 1 FROM duckdb_tables() WHERE table_name = $name
       UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $name LIMIT 1`,
      { name: relation },
    );
    return rows.length > 0;
  }

  /** Interrupts the reads in progress and resolves once each let go of its connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const interrupt of this.interrupts) interrupt();
    await Promise.all(this.inFlight);
    for (const kept of this.idle.splice(0)) kept.release();
    await Promise.allSettled(this.held);
  }
}

function stopping(): ApiError {
  return new ApiError('market_unavailable', 'the collector is stopping; ask again once it is back');
}
