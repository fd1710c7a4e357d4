/**
 * What the collector daemon collects and where, in a few groups, with every default written once
 * here: the daemon merges them in and the `market collect` flags show them.
 */
import type { Logger } from 'pino';
import { APP_IDS } from '../contract/common.js';
import type { FreshnessRules } from './freshness.js';

/** How a `--freshness` rule is read, beside the options it fills. */
export { type FreshnessRules, parseFreshnessRule } from './freshness.js';

/** The API deployment collected. */
export interface ApiOptions {
  /** `http://host:port/v1` of the API. */
  baseUrl: string;
  apiKey: string;
  /** Requests per rolling minute this collector allows itself on the key. @default 95 */
  readBudget?: number;
}

/** The warehouse file and how its writes are batched. */
export interface WarehouseFileOptions {
  /** @default 'data/warehouse.duckdb' */
  path?: string;
  /**
   * DuckDB's memory limit for the warehouse, e.g. `4GB`. Half the warehouse's own 1GB: a daemon's
   * pool otherwise fills with the file's cached blocks and with the rows a model build's open
   * transaction keeps from a checkpoint; at 256MB a replay with model builds ran out (figures in
   * test/bench/README.md, ingest). @default '512MB'
   */
  memoryLimit?: string;
  /** Folder of the SQL models. @default the project's `sql/models` */
  modelsDir?: string;
  /** Batch writer flush delay. @default 500 */
  flushMs?: number;
  /** The lake folder, where old days move. @default the warehouse's (`lake` beside the file) */
  lakeDir?: string;
}

/** Which sources run, and how often (every interval suits the published limits). */
export interface SourceOptions {
  /** @default [730, 570, 252490] */
  games?: number[];
  /** Cron expression of the snapshot download. @default '* * * * *' (once a minute) */
  snapshotCron?: string;
  /** Between CS2 delta polls. @default 30_000 */
  pollIntervalMs?: number;
  /** Between full sweeps of Dota 2 and Rust. @default 120_000 */
  sweepIntervalMs?: number;
  /** Between full sweeps of CS2 (the stream covers it; sweeps only confirm). @default 600_000 */
  cs2SweepIntervalMs?: number;
  /** Between reads of the minAsk lists. @default 300_000 */
  pricesIntervalMs?: number;
  /** Between reads of the FX rates. @default 300_000 */
  fxIntervalMs?: number;
  /** Silence after which the stream is reconnected. @default 40_000 */
  watchdogMs?: number;
  /**
   * The `account` source: the key owner's ledger, orders, P2P listings and sell orders. A key that
   * cannot read the account stops the source alone (shown in `market status`). @default true
   */
  account?: boolean;
  /** Between reads of the account's feeds. @default 30_000 */
  accountIntervalMs?: number;
}

/** Warehouse work on cron schedules (UTC), and where exports and reports go. */
export interface WarehouseWorkOptions {
  /** The model refresh, also run once at start; null for none. @default '* * * * *' (every minute) */
  modelsCron?: string | null;
  /**
   * Parquet exports of the models, each covering the days since yesterday; none when not given.
   * `market run` passes `0 * * * *` (hourly).
   */
  exportCron?: string;
  /** Folder of the exports, scheduled or asked through the control endpoint. @default 'data/exports' */
  exportDir?: string;
  /** Market reports (the last 7 days); none when not given. `market run` passes `0 * * * *`. */
  reportCron?: string;
  /** Folder of the scheduled reports. @default 'data/reports' */
  reportDir?: string;
  /** Deadline of a query through the control endpoint (`market sql`). @default 60_000 */
  queryTimeoutMs?: number;
  /**
   * Moves of the days older than `hotDays` into the lake, so the file keeps the hot days while the
   * history goes on in parquet; null for none. @default '0 3 * * *' (daily at 03:00 UTC)
   */
  lakeCron?: string | null;
  /** Whole days (UTC) a scheduled lake move keeps in the file besides today. @default 7 */
  hotDays?: number;
}

/** The control endpoint, fixed so that a scraper's config outlives restarts. */
export interface ControlEndpointOptions {
  /** Its port on 127.0.0.1; 0 picks a free one at every start. @default 0 */
  port?: number;
  /** A token `GET /metrics` accepts besides the per-run one (a scraper's lasting credential). */
  metricsToken?: string;
}

/** The price history endpoint (see history/server.ts); left out, none is served. */
export interface HistoryEndpointOptions {
  /** Its port; 0 picks a free one. */
  port: number;
  /** The address to bind. @default '127.0.0.1' */
  host?: string;
  /** The file of its keys, one per line, readable by its owner alone (else the start is refused). */
  keysFile: string;
  /** Origins whose browsers may read its answers. @default [] */
  corsOrigins?: readonly string[];
  /** Requests per key and rolling minute. @default 120 */
  ratePerMinute?: number;
}

/** What the daemon collects and where: the API, the warehouse file, the sources and the warehouse work. */
export interface CollectorOptions {
  api: ApiOptions;
  warehouse?: WarehouseFileOptions;
  sources?: SourceOptions;
  work?: WarehouseWorkOptions;
  control?: ControlEndpointOptions;
  history?: HistoryEndpointOptions;
  /**
   * Warn and error ages per source name (`sweep:730`) or kind (`sweep`), over the defaults that fit
   * each source's schedule (see freshness.ts).
   */
  freshness?: FreshnessRules;
  /** Called when the daemon cannot go on (a failed write); it should exit so a restart resumes. */
  onFatal?: (error: unknown) => void;
  /** Where failures and warnings go. @default pino at level warn on stderr */
  logger?: Logger;
}

/** Deadline of a read-only query through the collector, unless it asks for its own. */
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/** The defaults of every group, the one place they are written. */
export const COLLECTOR_DEFAULTS: {
  api: Required<Pick<ApiOptions, 'readBudget'>>;
  warehouse: Required<Pick<WarehouseFileOptions, 'path' | 'flushMs' | 'memoryLimit'>>;
  sources: Required<SourceOptions>;
  work: Required<
    Pick<
      WarehouseWorkOptions,
      'modelsCron' | 'exportDir' | 'reportDir' | 'queryTimeoutMs' | 'lakeCron' | 'hotDays'
    >
  >;
  control: Required<Pick<ControlEndpointOptions, 'port'>>;
} = {
  api: { readBudget: 95 },
  warehouse: { path: 'data/warehouse.duckdb', flushMs: 500, memoryLimit: '512MB' },
  sources: {
    games: [APP_IDS.cs2, APP_IDS.dota2, APP_IDS.rust],
    snapshotCron: '* * * * *',
    pollIntervalMs: 30_000,
    sweepIntervalMs: 120_000,
    cs2SweepIntervalMs: 600_000,
    pricesIntervalMs: 300_000,
    fxIntervalMs: 300_000,
    watchdogMs: 40_000,
    account: true,
    accountIntervalMs: 30_000,
  },
  work: {
    modelsCron: '* * * * *',
    exportDir: 'data/exports',
    reportDir: 'data/reports',
    queryTimeoutMs: DEFAULT_QUERY_TIMEOUT_MS,
    lakeCron: '0 3 * * *',
    hotDays: 7,
  },
  control: { port: 0 },
};
