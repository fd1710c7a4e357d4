/** The warehouse file: opening it (one writer per file), migrating, atomic batch writes, state, ad hoc SQL. */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { Database, DatabaseOpenError, type Params } from '../shared/database.js';
import { fileBytes } from '../shared/file-bytes.js';
import { findSqlDir } from '../shared/project-root.js';
import { inTransaction } from '../shared/transaction.js';
import { WarehouseLockedError, WarehouseWriteError } from './errors.js';
import { jsonSafeConverter } from './json-values.js';
import {
  connectionRunner,
  type LakeMoveSummary,
  type LakeStatus,
  lakeRelationsOf,
  type MoveContext,
  moveToLake,
  openLake,
  publishRebuilds,
  readLakeStatus,
  recordedLakeDir,
} from './lake/index.js';
import type { WarehouseBatch, WriteSummary } from './landing/batch.js';
import { landBatch } from './landing/land-batch.js';
import { clearStagingDir } from './landing/staging.js';
import { applyPendingLoads } from './live-set/live-set.js';
import {
  loadModels,
  type Model,
  type ModelRunSummary,
  type ModelTestResult,
  orderModels,
  type RunModelsOptions,
  readLakeLines,
  runModels,
  runModelTests,
  selectModels,
} from './models/index.js';
import { WarehouseThreads } from './threads.js';
import { createDerivedViews } from './typing/views.js';
import { sizeBytes, WAREHOUSE_DEFAULTS } from './warehouse-options.js';

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
  /** DuckDB's memory limit, e.g. `4GB`. @default {@link WAREHOUSE_DEFAULTS} (`1GB`) */
  memoryLimit?: string;
  /**
   * DuckDB's memory limit while an incremental model builds in full, e.g. `1GB`. DuckDB allocates
   * beyond its pool while a build runs (the process peaked at 1,297 and 1,467 MiB at a 1GB limit
   * over 30 and 90 days, 985 and 1,130 MiB at 640MB; `npm run bench models`), so a full build gets a
   * lower limit than the reads and spills sooner. @default {@link WAREHOUSE_DEFAULTS} (`640MB`)
   * without a `memoryLimit`; `memoryLimit` with one
   */
  fullBuildMemoryLimit?: string;
  /**
   * Size of the write-ahead log at which DuckDB checkpoints (writes the committed changes into the
   * file and empties the log) while a burst lands, and until told otherwise (see
   * {@link Warehouse.setBursting}), e.g. `16MB`. A checkpoint rewrites every row group and index a
   * write touched since the last one, so a small threshold makes every few writes pay one; a larger one
   * keeps more committed data in memory until then, and makes the next open after a crash (or a
   * kill -9) replay a longer log. @default {@link WAREHOUSE_DEFAULTS} (`64MB`)
   */
  checkpointThreshold?: string;
  /**
   * The checkpoint threshold while no burst lands (see {@link Warehouse.setBursting}): the log's
   * rows are held in memory until a checkpoint, and a trickle makes few checkpoints at any size.
   * @default {@link WAREHOUSE_DEFAULTS} (`16MB`) without a `checkpointThreshold`; that one with it
   */
  calmCheckpointThreshold?: string;
  /**
   * How long the live set's state keeps a listing that left, in ms of its happenings' times: after
   * that its row goes, and a sighting or departure landing older than that has the listing's
   * departures read from the history instead (see `live-set.ts`). @default {@link WAREHOUSE_DEFAULTS} (an hour)
   */
  departedKeptMs?: number;
  /**
   * Bytes of the file's blocks DuckDB keeps cached after an apply or a refresh (see
   * `trimCachedBlocks`). @default {@link WAREHOUSE_DEFAULTS} (64 MiB)
   */
  cachedBlocksKept?: number;
  /**
   * The lake folder: the old days moved out of the file (see {@link Warehouse.moveToLake}), read
   * with the file's rows by every view and model. @default the folder the file last moved to, else
   * `lake` beside the warehouse file (none for `:memory:`)
   */
  lakeDir?: string;
}

/** The folder of the warehouse migrations, `sql/warehouse` (see `findSqlDir`). */
export function findMigrationsDir(from?: string): string {
  return from === undefined ? findSqlDir('warehouse') : findSqlDir('warehouse', from);
}

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
  private modelQueue: Promise<unknown> = Promise.resolve();
  /** While the cached blocks are trimmed: reads and builds wait for it (see `trimCachedBlocks`). */
  private trimming: Promise<void> | null = null;
  private closed = false;
  private readonly threads = new WarehouseThreads((threads) => this.db.read(`SET threads = ${threads}`));

  private constructor(
    /** The file, as given to `open`. */
    readonly path: string,
    /** True when opened with `readOnly`. */
    readonly readOnly: boolean,
    private readonly key: string,
    private readonly db: Database,
    /** The clock given to `open` (epoch ms), for work that must agree with its timestamps. */
    readonly clock: () => number,
    /** Where bulk rows are staged during a write ('' when read-only); the collector's downloads go there too. */
    readonly stagingDir: string,
    /** The folder of the SQL models, absolute. */
    readonly modelsDir: string,
    /** Whether the file has the live set's state (a layout opened with older migrations has not). */
    private readonly liveSet: boolean,
    /** The lake folder, absolute (null for a file in memory). */
    readonly lakeDir: string | null,
    /** DuckDB's memory limit, and the one of a full build (see {@link WarehouseOptions}). */
    private readonly memory: { limit: string; fullBuild: string },
    /** How long the live set's state keeps a listing that left, and the cached blocks kept (see {@link WarehouseOptions}). */
    private readonly kept: { departedMs: number; cachedBlocks: number },
    /** The checkpoint thresholds in a burst and in calm, and the one in force (see {@link WarehouseOptions}). */
    private readonly checkpoints: CheckpointThresholds,
  ) {}

  /**
   * Opens (creating the file and its folders if needed) and migrates the warehouse. Throws a
   * {@link WarehouseLockedError} naming the file when another process, or this one, holds it.
   */
  static async open(path: string, options: WarehouseOptions = {}): Promise<Warehouse> {
    const readOnly = options.readOnly ?? false;
    const key = path === ':memory:' ? `:memory:${randomUUID()}` : resolve(path);
    if (openPaths.has(key)) throw new WarehouseLockedError(path, 'this process already has it open');
    openPaths.add(key);
    let db: Database | undefined;
    try {
      const checkpoints = checkpointThresholds(options);
      db = await openDatabase(path, options, checkpoints.burst);
      const clock = options.clock ?? Date.now;
      const lakeDir = await lakeDirOf(db, path, options.lakeDir);
      // The lake first: a move a kill interrupted is finished, and the typed views read its views.
      const modelsDir = resolve(options.modelsDir ?? findSqlDir('models'));
      if (!readOnly) await openLake({ ...lakeContext(db, clock, modelsDir), dir: lakeDir });
      const liveSet = readOnly ? false : await createDerivedViews(db);
      const stagingDir = readOnly ? '' : await prepareStagingDir(path, options.stagingDir);
      const warehouse = new Warehouse(
        path,
        readOnly,
        key,
        db,
        clock,
        stagingDir,
        modelsDir,
        liveSet,
        lakeDir,
        memoryLimits(options),
        {
          departedMs: options.departedKeptMs ?? WAREHOUSE_DEFAULTS.departedKeptMs,
          cachedBlocks: options.cachedBlocksKept ?? WAREHOUSE_DEFAULTS.cachedBlocksKept,
        },
        checkpoints,
      );
      // What landed before (a migrated file, a crash between a landing and its refresh) is applied now.
      await warehouse.applyLanded();
      return warehouse;
    } catch (error) {
      openPaths.delete(key);
      await db?.close();
      throw error;
    }
  }

  /** The committed progress markers of `source` (empty when it has none yet). */
  async readState(source: string): Promise<Record<string, string>> {
    const reader = await this.read(
      'SELECT key, value FROM collector_state WHERE source = $source ORDER BY key',
      { source },
    );
    return Object.fromEntries(reader.getRowObjectsJS().map((r) => [String(r.key), String(r.value)]));
  }

  /**
   * Lands `batches` in ONE transaction, in order, after any write in progress. Each batch gets a
   * `load_id` and a `loads` row; every row it lands carries that `load_id` and `ingested_at`.
   * Money lands as DECIMAL(18,2), epoch-ms times as UTC TIMESTAMP. Within a batch the fields apply
   * in the order of the landers' registry (`landers.ts`): `events`, `observations`, `gone`, then
   * prices, `gaps`, and last the `state` the rows cover; each `land-*.ts` says how its rows are
   * deduplicated, so a replayed batch lands nothing twice (stream events by id: above their log's
   * watermark without a look-up, at or below it looked up).
   *
   * On any error everything rolls back and a {@link WarehouseWriteError} is thrown: no row and no
   * state of any batch lands.
   */
  write(batches: readonly WarehouseBatch[]): Promise<WriteSummary> {
    if (this.readOnly) return Promise.reject(new Error(`the warehouse ${this.path} is open read-only`));
    if (this.closed) return Promise.reject(new Error(`the warehouse ${this.path} is closed`));
    return this.db
      .transaction((db) => this.landAll(db.connection, batches))
      .catch((cause: unknown) => {
        const sources = [...new Set(batches.map((b) => b.source))].join(', ');
        throw new WarehouseWriteError(
          `warehouse write of ${batches.length} batch(es) from ${sources} failed and was rolled back, nothing landed: ${(cause as Error).message}`,
          { cause },
        );
      });
  }

  /**
   * Applies the loads landed since the last call to what the warehouse derives from them as they
   * land: the live set's state and the counts of what the payloads carry (`payload_checks`,
   * `payload_fields`), in one transaction of its own after the writes queued before it.
   * `live_listings` is exact without it; it keeps what a read of the live set merges small. Does
   * nothing on a file without that state.
   *
   * Its commit does not checkpoint; the checkpoint its rows call for comes right after it. At the
   * commit DuckDB still holds every temp table of the apply (one keeps its memory until the commit
   * of the transaction that dropped it), and a checkpoint there, beside them and the rows landed
   * since the last one, was a burst's peak (`test/bench/README.md`, ingest).
   */
  applyLanded(): Promise<void> {
    if (this.readOnly || !this.liveSet) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`the warehouse ${this.path} is closed`));
    return this.db
      .betweenWrites(async (db) => {
        await db.run(`SET checkpoint_threshold = '${NO_CHECKPOINT}'`);
        try {
          await inTransaction(db.connection, () => applyPendingLoads(db, this.kept.departedMs));
        } finally {
          await db.run(`SET checkpoint_threshold = '${this.checkpoints.now || this.checkpoints.burst}'`);
        }
        // Refused while another connection writes: the next commit checkpoints then.
        if (fileBytes(`${this.path}.wal`) > this.thresholdBytes())
          await db.run('CHECKPOINT').catch(() => undefined);
      })
      .then(() => this.trimCachedBlocks().catch(() => undefined));
  }

  /** The checkpoint threshold in force, in bytes (the burst's when not known). */
  private thresholdBytes(): number {
    return this.checkpoints.now === this.checkpoints.calm
      ? this.checkpoints.calmBytes
      : this.checkpoints.burstBytes;
  }

  /**
   * Says whether a burst is landing (the batch writer knows): DuckDB then checkpoints at
   * `checkpointThreshold`, otherwise at `calmCheckpointThreshold`. A file opens as in a burst.
   * A burst written with a small threshold pays a checkpoint every few writes; a trickle with a
   * large one holds minutes of rows in memory, uncheckpointed.
   */
  async setBursting(bursting: boolean): Promise<void> {
    const threshold = bursting ? this.checkpoints.burst : this.checkpoints.calm;
    if (this.readOnly || this.closed || threshold === this.checkpoints.now) return;
    this.checkpoints.now = threshold;
    // On the writer's queue, so the next write's commit checkpoints at it and no long read delays it.
    await this.db
      .betweenWrites((db) => db.run(`SET checkpoint_threshold = '${threshold}'`))
      .catch((error) => {
        // Not known to be in force: the next call sets it again.
        this.checkpoints.now = '';
        throw error;
      });
  }

  /**
   * Evicts the file's blocks DuckDB keeps cached beyond `cachedBlocksKept`, when nothing
   * else runs on the file. A checkpoint leaves every block it wrote cached, and DuckDB evicts them
   * only when its limit needs the room, so without this the cache grew with all the daemon had
   * written, up to the limit (`test/bench/README.md`). Lowering the limit is DuckDB's way to evict
   * (`BufferPool::SetLimit`); it is raised back at once, and no read, build or write runs between:
   * one would find the lower limit and could fail. A block evicted is read again from the OS's
   * page cache when next needed.
   */
  private trimCachedBlocks(): Promise<void> {
    return this.db.betweenWrites(async (db) => {
      if (this.closed || this.threads.busy) return;
      let release = () => {};
      this.trimming = new Promise((resolve) => {
        release = resolve;
      });
      try {
        const [usage] = await db.all<{ cached: number | null; used: number | null }>(
          `SELECT sum(memory_usage_bytes) FILTER (WHERE tag = 'BASE_TABLE')::DOUBLE AS cached,
                  sum(memory_usage_bytes)::DOUBLE AS used FROM duckdb_memory()`,
        );
        const cached = Number(usage?.cached ?? 0);
        if (cached <= this.kept.cachedBlocks) return;
        const others = Number(usage?.used ?? 0) - cached;
        // Fails, leaving the limit as it was, when the blocks cannot all be evicted (some in use).
        await db
          .run(`SET memory_limit = '${Math.ceil((others + this.kept.cachedBlocks) / 2 ** 20)}MiB'`)
          .catch(() => undefined);
        await db.run(`SET memory_limit = '${this.memory.limit}'`);
      } finally {
        this.trimming = null;
        release();
      }
    });
  }

  /** Runs ad hoc SQL on committed data and returns its rows with JSON-safe values (see `jsonSafeConverter`). */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    const reader = await this.read(sql);
    return reader.convertRowObjects(jsonSafeConverter);
  }

  /**
   * Bytes DuckDB's buffer manager holds for this file now (`duckdb_memory()`, every tag): its
   * pool, not what it allocates outside it, which only the process' RSS shows.
   */
  async memoryBytes(): Promise<number> {
    const reader = await this.read('SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()');
    return Number(reader.getRowObjectsJS()[0]?.bytes ?? 0);
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
   * connection of their own, so landing writes go on meanwhile. One refresh runs at a time. A
   * model of the lake built in full then has its days in the lake replaced by the new build's.
   */
  refreshModels(options: ModelSelection & RunModelsOptions = {}): Promise<ModelRunSummary> {
    if (this.readOnly) return Promise.reject(new Error(`the warehouse ${this.path} is open read-only`));
    const next = this.modelQueue.then(async () => {
      const all = this.models();
      const chosen = options.select?.length ? selectModels(all, options.select, true) : all;
      const { limit, fullBuild } = this.memory;
      const fullBuildMemory =
        fullBuild === limit ? {} : { fullBuildMemory: { build: fullBuild, steady: limit } };
      const summary = await this.withConnection((connection) =>
        runModels(connection, chosen, { clock: this.clock, ...fullBuildMemory, ...options }),
      );
      // A full build of a model that moved wrote the lake's days again: they replace its files now.
      if (this.lakeDir !== null) await publishRebuilds(this.lakeContextAt(this.lakeDir));
      // After the writes queued meanwhile, which the refresh does not wait for.
      void this.trimCachedBlocks().catch(() => undefined);
      return summary;
    });
    this.modelQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * Moves every row landed before `before` (epoch ms; not after the clock's now) out of the file
   * into the lake (see `lake/move.ts`), after the model refresh in progress and before the next
   * one (a refresh meanwhile could write rows the move deletes). Every view and model answers the
   * same after it. Throws a `LakeInputError` for an instant to come.
   */
  moveToLake(before: number): Promise<LakeMoveSummary> {
    if (this.readOnly) return Promise.reject(new Error(`the warehouse ${this.path} is open read-only`));
    const dir = this.lakeDir;
    if (dir === null) return Promise.reject(new Error('a warehouse in memory has no lake'));
    const next = this.modelQueue.then(async () => {
      // What the live set and the payload counts derive from the loads pending is read from them here.
      await this.applyLanded();
      return moveToLake(this.lakeContextAt(dir), before);
    });
    this.modelQueue = next.catch(() => undefined);
    return next;
  }

  /** How a move or a rebuild's publishing reaches this warehouse and its lake at `dir`. */
  private lakeContextAt(dir: string): MoveContext {
    return {
      ...lakeContext(this.db, this.clock, this.modelsDir),
      dir,
      withConnection: (use) => this.withConnection(use),
    };
  }

  /** The lake's days, files and bytes, as the file's last completed move recorded them. */
  lakeStatus(): Promise<LakeStatus> {
    return this.withConnection((connection) => readLakeStatus(connectionRunner(connection)));
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
    return this.afterTrim(() => this.threads.widened(() => this.db.withConnection(use)));
  }

  /**
   * Runs `use` with a connection of its own held as long as `use` runs, without giving DuckDB its
   * second thread meanwhile: for a connection kept idle between reads, each of which runs in
   * {@link widened}. `close` waits for it.
   */
  holdConnection<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the warehouse ${this.path} is closed`));
    return this.db.withConnection(use);
  }

  /** Runs `use` as work that gives DuckDB its second thread once it has run a moment. */
  widened<T>(use: () => Promise<T>): Promise<T> {
    return this.afterTrim(() => this.threads.widened(use));
  }

  /**
   * Starts `work` once no trim of the cached blocks runs, at once when none does: started in the
   * same tick as the check, it counts as busy before a trim can look, so none runs beside it.
   */
  private async afterTrim<T>(work: () => Promise<T>): Promise<T> {
    while (this.trimming !== null) await this.trimming;
    return work();
  }

  /** Waits for the write and the reads in progress, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([this.modelQueue]);
    await this.threads.drained();
    await this.db.close();
    openPaths.delete(this.key);
    if (this.stagingDir) await clearStagingDir(this.stagingDir, true);
  }

  /** Runs `sql` on a connection of its own and reads all its rows. */
  private read(sql: string, params?: Params): Promise<DuckDBResultReader> {
    return this.withConnection((connection) => connection.runAndReadAll(sql, params));
  }

  /** Lands `batches` in order inside the open transaction of `connection`. */
  private async landAll(
    connection: DuckDBConnection,
    batches: readonly WarehouseBatch[],
  ): Promise<WriteSummary> {
    const now = this.clock();
    const loads = [];
    for (const batch of batches)
      loads.push(await landBatch(connection, this.stagingDir, batch, now, this.liveSet));
    return { loads, rows: loads.reduce((sum, l) => sum + l.rows, 0) };
  }
}

/** The memory limits `options` give, with their defaults. */
function memoryLimits(options: WarehouseOptions): { limit: string; fullBuild: string } {
  const limit = options.memoryLimit ?? WAREHOUSE_DEFAULTS.memoryLimit;
  // A limit given holds for the full builds too, unless they are given their own.
  const fullBuild = options.memoryLimit === undefined ? WAREHOUSE_DEFAULTS.fullBuildMemoryLimit : limit;
  return { limit, fullBuild: options.fullBuildMemoryLimit ?? fullBuild };
}

function checkpointThresholds(options: WarehouseOptions): CheckpointThresholds {
  const burst = options.checkpointThreshold ?? WAREHOUSE_DEFAULTS.checkpointThreshold;
  // A threshold given holds in calm too, unless calm is given its own.
  const calm =
    options.calmCheckpointThreshold ??
    (options.checkpointThreshold === undefined ? WAREHOUSE_DEFAULTS.calmCheckpointThreshold : burst);
  return { burst, calm, burstBytes: sizeBytes(burst), calmBytes: sizeBytes(calm), now: burst };
}

/** A checkpoint threshold no commit reaches: an apply's, checkpointed after (see `Warehouse.applyLanded`). */
const NO_CHECKPOINT = '1000TB';

/** The checkpoint thresholds in a burst and in calm (as DuckDB takes them and in bytes), and the one in force. */
interface CheckpointThresholds {
  burst: string;
  calm: string;
  burstBytes: number;
  calmBytes: number;
  now: string;
}

/** DuckDB's block size for a warehouse file it creates. */
const WAREHOUSE_BLOCK_BYTES = 65_536;

/** DuckDB's storage version for a warehouse file it creates. */
const WAREHOUSE_STORAGE_VERSION = 'v1.2.0';

/**
 * Opens the file with the warehouse's settings and migrations, turning DuckDB's lock conflict into a
 * {@link WarehouseLockedError}.
 */
async function openDatabase(
  path: string,
  options: WarehouseOptions,
  checkpointThreshold: string,
): Promise<Database> {
  try {
    return await Database.open(path, {
      migrationsDir: options.migrationsDir ?? findMigrationsDir(),
      readOnly: options.readOnly ?? false,
      // A bounded buffer pool keeps a months-long daemon's memory flat; DuckDB spills beyond it. Model
      // builds over a month of history need more than landing does (a few hundred MB per million
      // listing events).
      memoryLimit: memoryLimits(options).limit,
      // One until wider work asks for more (see `WarehouseThreads`).
      threads: 1,
      config: {
        // Kept (DuckDB's default): without it, each statement of a full build in parts left its
        // threads' last partial row groups in memory until the build's one transaction committed,
        // so a build by day held more the more days there were (854 MiB at 90 days, against about
        // 100 MiB with it; `test/bench/README.md`).
        preserve_insertion_order: 'true',
        checkpoint_threshold: checkpointThreshold,
        // A new file's blocks (an existing one keeps its own). Rows appended to a table since the last
        // checkpoint sit in a block per column and validity mask, however few: with DuckDB's 256 KiB
        // every table a daemon writes held 0.5 MiB per column until the next checkpoint (about 175
        // MiB in the main job), at 64 KiB a quarter of it, and the file is smaller too
        // (`test/bench/README.md`, "The blocks of a new warehouse").
        default_block_size: String(WAREHOUSE_BLOCK_BYTES),
        // A new file's storage version (an existing one keeps its own): 1.2 stores the raw text
        // with zstd (migration 029). DuckDB 1.2 (February 2025) and later read such a file.
        storage_compatibility_version: WAREHOUSE_STORAGE_VERSION,
      },
      sessionSql: ["SET TimeZone = 'UTC'"],
    });
  } catch (error) {
    if (!(error instanceof DatabaseOpenError)) throw error;
    if (/could not set lock|conflicting lock/i.test(error.reason)) {
      throw new WarehouseLockedError(path, error.reason.replace(/^IO Error: /, ''), { cause: error.cause });
    }
    throw new Error(`cannot open the warehouse ${path}: ${error.reason}`, { cause: error.cause });
  }
}

/** The lake folder of the file at `path`: `chosen`, else the one it last moved to, else `lake` beside it; none in memory. */
async function lakeDirOf(db: Database, path: string, chosen: string | undefined): Promise<string | null> {
  if (chosen !== undefined) return resolve(chosen);
  if (path === ':memory:') return null;
  return (await recordedLakeDir(db)) ?? join(dirname(resolve(path)), 'lake');
}

/** How a lake move or open reaches `db`: the writer's transactions and connections of its own. */
function lakeContext(db: Database, clock: () => number, modelsDir: string): Omit<MoveContext, 'dir'> {
  const lines = readLakeLines(modelsDir);
  return {
    clock,
    // Read afresh, as the models are: a model's `lake:` line says whether it moves.
    relations: lakeRelationsOf(lines),
    ordered: lines.filter((m) => m.lake === null && m.orderBy.length > 0),
    transaction: (work) => db.transaction(work),
    withConnection: (use) => db.withConnection(use),
  };
}

/** Creates the staging folder, clearing files a crashed writer left behind (this process now holds the lock). */
async function prepareStagingDir(path: string, chosen: string | undefined): Promise<string> {
  if (!chosen && path === ':memory:') return mkdtemp(join(tmpdir(), 'warehouse-staging-'));
  const dir = chosen ?? `${path}.staging`;
  await mkdir(dir, { recursive: true });
  await clearStagingDir(dir, false);
  return dir;
}
