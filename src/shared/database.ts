/** A DuckDB file: opening it, applying migrations, serialised write transactions and readers beside them. */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import { applyMigrations, findMissingMigrations } from './migrations.js';
import { inTransaction, type RollbackErrorHandler } from './transaction.js';

/** Named parameters of a statement. */
export type Params = Record<string, DuckDBValue>;

/** Options of {@link Database.open}. */
export interface DatabaseOptions {
  /** Folder of the `NNN_name.sql` migrations to apply on open; none are applied without it. */
  migrationsDir?: string;
  /** DuckDB's `memory_limit`, e.g. `1GB`. @default '512MB' */
  memoryLimit?: string;
  /** DuckDB's worker threads. @default 2 */
  threads?: number;
  /** Opens the file for reading only: migrations are checked rather than applied. @default false */
  readOnly?: boolean;
  /** Any other DuckDB setting, e.g. `{ preserve_insertion_order: 'false' }`. */
  config?: Readonly<Record<string, string>>;
  /** Statements run on every connection as it opens, e.g. `SET TimeZone = 'UTC'`. */
  sessionSql?: readonly string[];
  /** Told when a ROLLBACK fails after an error (the original error is still the one thrown). */
  onRollbackError?: RollbackErrorHandler;
}

/** DuckDB refused to open the file; `reason` is DuckDB's own message (a lock conflict, a missing file). */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';

  constructor(
    readonly path: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot open the database ${path}: ${reason}`, options);
  }
}

/** The statements of a write in progress: what a transaction's work may call. */
export type Tx = Pick<Database, 'run' | 'runPrepared' | 'all'>;

/**
 * An open DuckDB database. Writes run one transaction at a time on the writer connection;
 * `read` uses a second connection, so a reader never sees a write that has not committed.
 *
 * @example
 * const db = await Database.open('data/market.duckdb', projectPath('sql', 'service'));
 * await db.transaction((tx) => tx.run('INSERT INTO t VALUES ($id)', { id: 1 }));
 */
export class Database {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly borrowed = new Set<Promise<unknown>>();
  /** Statements of `runPrepared` by SQL text; null for a text DuckDB cannot prepare. */
  private readonly statements = new Map<string, DuckDBPreparedStatement | null>();

  private constructor(
    /** The file, as given to `open`. */
    readonly path: string,
    private readonly instance: DuckDBInstance,
    /** The writer connection: statements on it belong to the write in progress. */
    readonly connection: DuckDBConnection,
    private readonly reader: DuckDBConnection,
    private readonly options: DatabaseOptions,
  ) {}

  /**
   * Opens (creating the file and its folder if needed) the database and applies the migrations of
   * `options.migrationsDir`; a string is taken as that folder. A read-only open refuses a file that
   * lacks some of them. Throws a {@link DatabaseOpenError} when DuckDB cannot open the file.
   */
  static async open(path: string, options: string | DatabaseOptions = {}): Promise<Database> {
    const opts = typeof options === 'string' ? { migrationsDir: options } : options;
    const instance = await createInstance(path, opts);
    try {
      const connection = await connectWith(instance, opts.sessionSql);
      const db = new Database(path, instance, connection, await connectWith(instance, opts.sessionSql), opts);
      if (opts.migrationsDir) await db.migrate(opts.migrationsDir);
      return db;
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  /** Reads committed data on the reader connection, beside any write in progress. */
  async read<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.reader.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  }

  /** Runs a statement on the writer connection (inside `transaction`, or at start-up) and returns its rows. */
  async all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  }

  /** Runs a statement for its effect on the writer connection (inside `transaction`, or at start-up). */
  async run(sql: string, params?: Params): Promise<void> {
    await this.connection.run(sql, params);
  }

  /**
   * Runs a statement of a hot path on the writer connection like `run`, but prepared once per SQL
   * text and only bound on later calls (parsing and planning cost more than the write itself). A
   * text DuckDB cannot prepare (several statements, say) simply runs as `run` does.
   */
  async runPrepared(sql: string, params: Params = {}): Promise<void> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = await this.connection.prepare(sql).catch(() => null);
      this.statements.set(sql, statement);
    }
    if (statement === null) return this.run(sql, params);
    statement.bind(params);
    await statement.run();
  }

  /**
   * Runs `work` inside one transaction, after every earlier write has finished; rolls back on
   * any error so a failed write changes nothing. A failed ROLLBACK does not replace the error
   * (see `inTransaction`), and later transactions still run.
   */
  transaction<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const next = this.queue.then(() =>
      inTransaction(this.connection, () => work(this), this.options.onRollbackError),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs `work` on the writer connection outside any transaction, after every earlier write has
   * finished and before any later one starts.
   */
  betweenWrites<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => work(this));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs `use` with a connection of its own (with the session statements), closed afterwards;
   * `close` waits for it. For reads at length that must not hold up the reader connection.
   */
  withConnection<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const using = (async () => {
      const connection = await connectWith(this.instance, this.options.sessionSql);
      try {
        return await use(connection);
      } finally {
        connection.closeSync();
      }
    })();
    this.borrowed.add(using);
    void using.finally(() => this.borrowed.delete(using)).catch(() => undefined);
    return using;
  }

  /** Waits for pending writes and borrowed connections, then closes the file. */
  async close(): Promise<void> {
    await Promise.allSettled([this.queue, ...this.borrowed]);
    this.reader.closeSync();
    this.connection.closeSync();
    this.instance.closeSync();
  }

  private async migrate(dir: string): Promise<void> {
    if (!this.options.readOnly) {
      await applyMigrations(this.connection, dir, this.options.onRollbackError);
      return;
    }
    const missing = await findMissingMigrations(this.connection, dir);
    if (missing.length > 0) {
      throw new Error(
        `${this.path} lacks migrations ${missing.join(', ')}; open it once read-write to apply them`,
      );
    }
  }
}

/** Creates the DuckDB instance with the options' settings, naming the file when DuckDB refuses. */
async function createInstance(path: string, options: DatabaseOptions): Promise<DuckDBInstance> {
  if (!options.readOnly && path !== ':memory:') await mkdir(dirname(path), { recursive: true });
  const settings: Record<string, string> = {
    memory_limit: options.memoryLimit ?? '512MB',
    threads: String(options.threads ?? 2),
    ...options.config,
  };
  if (options.readOnly) settings.access_mode = 'READ_ONLY';
  try {
    return await DuckDBInstance.create(path, settings);
  } catch (cause) {
    throw new DatabaseOpenError(path, (cause as Error).message, { cause });
  }
}

/** A new connection of `instance`, with `sessionSql` run on it. */
async function connectWith(
  instance: DuckDBInstance,
  sessionSql: readonly string[] = [],
): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  try {
    for (const sql of sessionSql) await connection.run(sql);
    return connection;
  } catch (error) {
    connection.closeSync();
    throw error;
  }
}
