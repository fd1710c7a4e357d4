/** The warehouse file: opening it (one writer per file), migrating, atomic batch writes, state, ad hoc SQL. */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type DuckDBResultReader } from '@duckdb/node-api';
import type { LoadSummary, WarehouseBatch, WriteSummary } from './batch.js';
import { WarehouseLockedError, WarehouseWriteError } from './errors.js';
import { jsonSafeConverter } from './json-values.js';
import { landGaps, landLoad, landState } from './land-bookkeeping.js';
import { landEvents } from './land-events.js';
import { landGone, landObservations } from './land-observations.js';
import { landFx, landMinAsk, landSnapshot } from './land-prices.js';
import {
  applyMigrations,
  findMigrationsDir,
  findSqlDir,
  listMigrations,
  readAppliedMigrations,
} from './migrations.js';
import {
  loadModels,
  type Model,
  type ModelRunSummary,
  type ModelTestResult,
  orderModels,
  type RunModelsOptions,
  runModels,
  runModelTests,
  selectModels,
} from './models/index.js';
import type { LandingContext, Params } from './sql.js';
import { clearStagingDir } from './staging.js';

/** Options of {@link Warehouse.open}. */
export interface WarehouseOptions {
  /** Open for queries only: no migrations, and `write` is refused. @default false */
  readOnly?: boolean;
  /** Folder of the `NNN_name.sql` migrations. @default the project's `sql/warehouse` */
  migrationsDir?: string;
  /** Clock of `ingested_at` and `loads.started_at`, in epoch ms. @default Date.now */
  clock?: () => number;
  /**
   * Folder where bulk rows are staged as NDJSON files during a write; files a crash left there are
   * removed on open. @default `<file>.staging` beside the warehouse file (a temp folder for `:memory:`)
   */
  stagingDir?: string;
  /** Folder of the SQL models. @default the project's `sql/models` */
  modelsDir?: string;
  /** DuckDB's memory limit, e.g. `4GB`. @default MARKET_WAREHOUSE_MEMORY, else `1GB` */
  memoryLimit?: string;
}

/** Enough to build the models over about a million listing events; raise it for longer histories. */
const DEFAULT_MEMORY_LIMIT = '1GB';

/** Which models a refresh or a test run covers. */
export interface ModelSelection {
  /** Model names; with none, every model. Building a model also builds what it depends on. */
  select?: readonly string[];
}

/** Files this process has open, so a second open in the same process is refused like one from another. */
const openPaths = new Set<string>();

/**
 * The DuckDB warehouse the collectors land data in. Writes run one at a time, each in one
 * transaction on the writer connection; `query` and `readState` read committed data, each on a
 * connection of its own, so they never see a write in progress nor disturb it.
 *
 * @example
 * const warehouse = await Warehouse.open('data/warehouse.duckdb');
 * await warehouse.write([{ source: 'stream', events, state: { last_event_id: events.at(-1).eventId } }]);
 * const state = await warehouse.readState('stream');
 */
export class Warehouse {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly reads = new Set<Promise<unknown>>();
  private modelQueue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    /** The file, as given to `open`. */
    readonly path: string,
    /** True when opened with `readOnly`. */
    readonly readOnly: boolean,
    private readonly key: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    /** The clock given to `open` (epoch ms), for work that must agree with its timestamps. */
    readonly clock: () => number,
    private readonly stagingDir: string,
    private readonly modelsDir: string,
  ) {}

  /**
   * Opens (creating the file and its folders if needed) and migrates the warehouse. Throws a
   * {@link WarehouseLockedError} naming the file when another process, or this one, holds it.
   */
  static async open(path: string, options: WarehouseOptions = {}): Promise<Warehouse> {
    const readOnly = options.readOnly ?? false;
    const key = path === ':memory:' ? `:memory:${randomUUID()}` : resolve(path);
    if (openPaths.has(key)) throw new WarehouseLockedError(path, 'this process already has it open');
    if (!readOnly && path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const instance = await createInstance(
      path,
      readOnly,
      options.memoryLimit ?? process.env.MARKET_WAREHOUSE_MEMORY ?? DEFAULT_MEMORY_LIMIT,
    );
    openPaths.add(key);
    try {
      const writer = await connectUtc(instance);
      const dir = options.migrationsDir ?? findMigrationsDir();
      if (readOnly) await checkMigrated(writer, dir, path);
      else await applyMigrations(writer, dir);
      const stagingDir = readOnly ? '' : await prepareStagingDir(path, options.stagingDir);
      const modelsDir = options.modelsDir ?? findSqlDir('models');
      return new Warehouse(
        path,
        readOnly,
        key,
        instance,
        writer,
        options.clock ?? Date.now,
        stagingDir,
        modelsDir,
      );
    } catch (error) {
      openPaths.delete(key);
      instance.closeSync();
      throw error;
    }
  }

  /** The committed progress markers of `source` (empty when it has none yet). */
  async readState(source: string): Promise<Record<string, string>> {
    const reader = await this.read(
      'SELECT key, value FROM collector_state WHERE source = $source ORDER BY key',
      {
        source,
      },
    );
    return Object.fromEntries(reader.getRowObjectsJS().map((r) => [String(r.key), String(r.value)]));
  }

  /**
   * Lands `batches` in ONE transaction, in order, after any write in progress. Each batch gets a
   * `load_id` and a `loads` row; every row it lands carries that `load_id` and `ingested_at`.
   * Money lands as DECIMAL(18,2), epoch-ms times as UTC TIMESTAMP. Within a batch, in this order:
   *
   * - `events` apply one after the other; an event whose id is already landed is skipped, so a
   *   replay neither lands it again nor changes `live_listings` again. `new` upserts the listing
   *   (`first_seen_at` kept when the row exists, `last_seen_at` = receivedAt, `last_event_id` set),
   *   `gone` deletes it.
   * - `observations` land once per (via, passId, listing id). A fresh one upserts the listing:
   *   inserted with `first_seen_at` when absent, else fields and `last_seen_at` updated (unless the
   *   row already reflects a later sighting).
   * - `gone` rows land once per (via, listing id, detectedAt) in `listing_gone` and delete the live
   *   listing, unless it was seen after detectedAt.
   * - `snapshot`: a downloaded file is read with `read_json` into `price_snapshots` (once per ETag);
   *   `snapshot_fetches` records every fetch, a 304 as `unchanged`.
   * - `minask` lands once per (app, generatedAt, group); `fx` once per (currency, updatedAt);
   *   `gaps` upsert by source, kind and start.
   * - `state` is upserted key by key, committed with the rows it covers.
   *
   * On any error everything rolls back and a {@link WarehouseWriteError} is thrown: no row and no
   * state of any batch lands.
   */
  write(batches: readonly WarehouseBatch[]): Promise<WriteSummary> {
    if (this.readOnly) return Promise.reject(new Error(`the warehouse ${this.path} is open read-only`));
    if (this.closed) return Promise.reject(new Error(`the warehouse ${this.path} is closed`));
    const next = this.queue.then(() => this.writeNow(batches));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Runs ad hoc SQL on committed data and returns its rows with JSON-safe values (see `jsonSafeConverter`). */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    const reader = await this.read(sql);
    return reader.convertRowObjects(jsonSafeConverter);
  }

  /**
   * Writes the rows of a query to a parquet file, atomically (written aside, then renamed over
   * `path`), and returns how many rows it holds.
   */
  async queryToParquet(sql: string, path: string): Promise<number> {
    const aside = `${path}.${randomUUID()}.tmp`;
    try {
      const result = await this.withConnection((connection) =>
        connection.run(`COPY (${sql}) TO '${aside.replaceAll("'", "''")}' (FORMAT parquet)`),
      );
      await rename(aside, path);
      return result.rowsChanged;
    } catch (error) {
      await rm(aside, { force: true });
      throw error;
    }
  }

  /** The models of the models folder, in dependency order (read afresh, so edits take effect). */
  models(): Model[] {
    return orderModels(loadModels(this.modelsDir));
  }

  /**
   * Builds the models (all, or the selected ones with what they depend on) in one transaction on a
   * connection of their own, so landing writes go on meanwhile. One refresh runs at a time.
   */
  refreshModels(options: ModelSelection & RunModelsOptions = {}): Promise<ModelRunSummary> {
    if (this.readOnly) return Promise.reject(new Error(`the warehouse ${this.path} is open read-only`));
    const next = this.modelQueue.then(() => {
      const all = this.models();
      const chosen = options.select?.length ? selectModels(all, options.select, true) : all;
      return this.withConnection((connection) =>
        runModels(connection, chosen, { clock: this.clock, ...options }),
      );
    });
    this.modelQueue = next.catch(() => undefined);
    return next;
  }

  /** Runs the tests of the models (all, or the selected ones) on the models as last built. */
  testModels(options: ModelSelection = {}): Promise<ModelTestResult[]> {
    const all = this.models();
    const chosen = options.select?.length ? selectModels(all, options.select, false) : all;
    return this.withConnection((connection) => runModelTests(connection, chosen));
  }

  /**
   * Runs `use` with a connection of its own (session time zone UTC), closed afterwards; `close`
   * waits for it. For work that reads committed data at length, or builds models.
   */
  withConnection<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the warehouse ${this.path} is closed`));
    const using = (async () => {
      const connection = await connectUtc(this.instance);
      try {
        return await use(connection);
      } finally {
        connection.closeSync();
      }
    })();
    this.reads.add(using);
    void using.finally(() => this.reads.delete(using)).catch(() => undefined);
    return using;
  }

  /** Waits for the write and the reads in progress, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([this.queue, this.modelQueue, ...this.reads]);
    this.writer.closeSync();
    this.instance.closeSync();
    openPaths.delete(this.key);
    if (this.stagingDir) await clearStagingDir(this.stagingDir, true);
  }

  /** Runs `sql` on a connection of its own and reads all its rows. */
  private read(sql: string, params?: Params): Promise<DuckDBResultReader> {
    return this.withConnection((connection) => connection.runAndReadAll(sql, params));
  }

  private async writeNow(batches: readonly WarehouseBatch[]): Promise<WriteSummary> {
    const now = this.clock();
    await this.writer.run('BEGIN TRANSACTION');
    try {
      const loads: LoadSummary[] = [];
      for (const batch of batches) loads.push(await this.landBatch(batch, now));
      await this.writer.run('COMMIT');
      return { loads, rows: loads.reduce((sum, l) => sum + l.rows, 0) };
    } catch (cause) {
      // A failed rollback leaves the transaction open, and the next write's BEGIN says so.
      await this.writer.run('ROLLBACK').catch(() => undefined);
      const sources = [...new Set(batches.map((b) => b.source))].join(', ');
      throw new WarehouseWriteError(
        `warehouse write of ${batches.length} batch(es) from ${sources} failed and was rolled back, nothing landed: ${(cause as Error).message}`,
        { cause },
      );
    }
  }

  private async landBatch(batch: WarehouseBatch, now: number): Promise<LoadSummary> {
    const tables: Record<string, number> = {};
    const context: LandingContext = {
      connection: this.writer,
      stagingDir: this.stagingDir,
      loadId: randomUUID(),
      source: batch.source,
      now,
      count: (table, rows) => {
        tables[table] = (tables[table] ?? 0) + rows;
      },
    };
    if (batch.events) await landEvents(context, batch.events);
    if (batch.observations) await landObservations(context, batch.observations);
    if (batch.gone) await landGone(context, batch.gone);
    if (batch.snapshot) await landSnapshot(context, batch.snapshot);
    if (batch.minask) await landMinAsk(context, batch.minask);
    if (batch.fx) await landFx(context, batch.fx);
    if (batch.gaps) await landGaps(context, batch.gaps);
    if (batch.state) await landState(context, batch.state);
    const rows = Object.entries(tables).reduce(
      (sum, [table, n]) => (table === 'live_listings' ? sum : sum + n),
      0,
    );
    await landLoad(context, rows);
    return { loadId: context.loadId, source: batch.source, rows, tables };
  }
}

/** Creates the DuckDB instance, turning DuckDB's lock conflict into a {@link WarehouseLockedError}. */
async function createInstance(path: string, readOnly: boolean, memoryLimit: string): Promise<DuckDBInstance> {
  try {
    // A bounded buffer pool keeps a months-long daemon's memory flat; DuckDB spills beyond it. Model
    // builds over a month of history need more than landing does (a few hundred MB per million
    // listing events); nothing relies on the physical order of a query's output.
    const settings = { memory_limit: memoryLimit, threads: '2', preserve_insertion_order: 'false' };
    return await DuckDBInstance.create(path, readOnly ? { ...settings, access_mode: 'READ_ONLY' } : settings);
  } catch (cause) {
    const message = (cause as Error).message;
    if (/could not set lock|conflicting lock/i.test(message)) {
      throw new WarehouseLockedError(path, message.replace(/^IO Error: /, ''), { cause });
    }
    throw new Error(`cannot open the warehouse ${path}: ${message}`, { cause });
  }
}

/** Creates the staging folder, clearing files a crashed writer left behind (this process now holds the lock). */
async function prepareStagingDir(path: string, chosen: string | undefined): Promise<string> {
  if (!chosen && path === ':memory:') return mkdtemp(join(tmpdir(), 'warehouse-staging-'));
  const dir = chosen ?? `${path}.staging`;
  await mkdir(dir, { recursive: true });
  await clearStagingDir(dir, false);
  return dir;
}

/** A new connection whose session time zone is UTC, like every timestamp of the warehouse. */
async function connectUtc(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  return connection;
}

/** Refuses a read-only open of a file that lacks some migrations (it cannot migrate it). */
async function checkMigrated(connection: DuckDBConnection, dir: string, path: string): Promise<void> {
  const applied = new Set(await readAppliedMigrations(connection));
  const missing = listMigrations(dir).filter((m) => !applied.has(m));
  if (missing.length > 0) {
    throw new Error(
      `the warehouse ${path} lacks migrations ${missing.join(', ')}; open it once read-write to apply them`,
    );
  }
}
