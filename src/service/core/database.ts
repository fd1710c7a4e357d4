/** The service's DuckDB file: opening it, applying migrations, and serialised write transactions. */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';

/** Named parameters of a statement. */
export type Params = Record<string, DuckDBValue>;

/**
 * An open service database. Writes run one transaction at a time on the writer connection;
 * `read` uses a second connection, so a reader never sees a write that has not committed.
 */
export class Database {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    private readonly reader: DuckDBConnection,
  ) {}

  /** Opens (creating if needed) the database file and applies the migrations of `migrationsDir`. */
  static async open(path: string, migrationsDir: string): Promise<Database> {
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    let instance: DuckDBInstance;
    try {
      // The live catalogue is served from memory; DuckDB needs little besides its own buffers.
      instance = await DuckDBInstance.create(path, { memory_limit: '512MB', threads: '2' });
    } catch (cause) {
      throw new Error(`cannot open ${path}: is another process using it? (${(cause as Error).message})`, {
        cause,
      });
    }
    const db = new Database(path, instance, await instance.connect(), await instance.connect());
    await db.migrate(migrationsDir);
    return db;
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
   * Runs `work` inside one transaction, after every earlier write has finished; rolls back on
   * any error so a failed write changes nothing.
   */
  transaction<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => {
      await this.connection.run('BEGIN TRANSACTION');
      try {
        const result = await work(this);
        await this.connection.run('COMMIT');
        return result;
      } catch (error) {
        await this.connection.run('ROLLBACK');
        throw error;
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Waits for pending writes, then closes the file. */
  async close(): Promise<void> {
    await this.queue;
    this.reader.closeSync();
    this.connection.closeSync();
    this.instance.closeSync();
  }

  private async migrate(dir: string): Promise<void> {
    await this.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version VARCHAR PRIMARY KEY, applied_at TIMESTAMP NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await this.all<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    for (const file of files) {
      if (applied.has(file)) continue;
      const sql = readFileSync(join(dir, file), 'utf8');
      await this.transaction(async (db) => {
        await db.run(sql);
        await db.run('INSERT INTO schema_migrations (version) VALUES ($v)', { v: file });
      });
    }
  }
}
