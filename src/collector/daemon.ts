/**
 * The collector daemon: every source of one API deployment landing into one warehouse, until
 * stopped; then it drains and flushes. Only one process may write a warehouse: a second collector
 * on the same file is refused by the warehouse's lock with a clear message.
 */
import { resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { MarketClient } from '../client/index.js';
import { APP_IDS } from '../contract/common.js';
import { isCronExpression, type Job } from '../shared/jobs/index.js';
import { BatchWriter, Warehouse } from '../warehouse/index.js';
import { type ControlServer, startControlServer } from './control.js';
import { lockDownWarehouse } from './lock-down.js';
import { type SourceTask, startSourceJob } from './source-job.js';
import type { SourceStatus } from './source-status.js';
import { createAccountTask } from './sources/account-source.js';
import { createPollTask } from './sources/poll-source.js';
import { createFxTask, createPricesTask, createSnapshotTask } from './sources/price-sources.js';
import { StreamSource } from './sources/stream-source.js';
import { createSweepTask } from './sources/sweep-source.js';
import {
  createExportTask,
  createModelsTask,
  createReportTask,
  watchWarehouseWork,
} from './warehouse-tasks.js';

/** What the daemon collects and where; every interval has a default that suits the published limits. */
export interface CollectorOptions {
  /** `http://host:port/v1` of the API. */
  baseUrl: string;
  apiKey: string;
  /** @default 'data/warehouse.duckdb' */
  warehousePath?: string;
  /** @default [730, 570, 252490] */
  games?: number[];
  /** Cron expression of the snapshot download. @default '* * * * *' (once a minute) */
  snapshotCron?: string;
  /** @default 30_000 */
  pollIntervalMs?: number;
  /** Between full sweeps of Dota 2 and Rust. @default 120_000 */
  sweepIntervalMs?: number;
  /** Between full sweeps of CS2 (the stream covers it; sweeps only confirm). @default 600_000 */
  cs2SweepIntervalMs?: number;
  /** @default 300_000 */
  pricesIntervalMs?: number;
  /** @default 300_000 */
  fxIntervalMs?: number;
  /** @default 40_000 */
  watchdogMs?: number;
  /**
   * The `account` source: the key owner's ledger, orders, P2P listings and sell orders. A key that
   * cannot read the account stops the source alone (shown in `market status`). @default true
   */
  account?: boolean;
  /** Between reads of the account's feeds. @default 30_000 */
  accountIntervalMs?: number;
  /** Batch writer flush delay. @default 500 */
  flushMs?: number;
  /** Requests per rolling minute this collector allows itself on the key. @default 95 */
  readBudget?: number;
  /** Called when the daemon cannot go on (a failed write); it should exit so a restart resumes. */
  onFatal?: (error: unknown) => void;
  /**
   * Cron schedule (UTC) of parquet exports of the models, each covering the days since yesterday;
   * none when not given. `market run` passes `0 * * * *` (hourly).
   */
  exportCron?: string;
  /** Folder of the scheduled exports. @default 'data/exports' */
  exportDir?: string;
  /**
   * Cron schedule (UTC) of market reports (the last 7 days); none when not given. `market run`
   * passes `0 * * * *` (hourly).
   */
  reportCron?: string;
  /** Folder of the scheduled reports. @default 'data/reports' */
  reportDir?: string;
  /** Folder of the SQL models. @default the project's `sql/models` */
  modelsDir?: string;
  /**
   * Cron schedule (UTC) of the model refresh, also run once at start; null for none.
   * @default '* * * * *' (every minute)
   */
  modelsCron?: string | null;
  /** DuckDB's memory limit for the warehouse, e.g. `4GB`. @default the warehouse's (1GB) */
  memoryLimit?: string;
  /** Deadline of a query through the control endpoint (`market sql`). @default 60_000 */
  queryTimeoutMs?: number;
  /** Where failures and warnings go. @default pino at level warn on stderr */
  logger?: Logger;
}

/** A running collector. */
export interface RunningCollector {
  warehouse: Warehouse;
  control: ControlServer;
  status(): SourceStatus[];
  stop(): Promise<void>;
}

/** Opens the warehouse, resumes every source from its committed state, and starts them. */
export async function startCollector(options: CollectorOptions): Promise<RunningCollector> {
  if (options.exportCron !== undefined && !isCronExpression(options.exportCron))
    throw new Error(`the export schedule "${options.exportCron}" is not a cron expression, e.g. "0 * * * *"`);
  if (options.reportCron !== undefined && !isCronExpression(options.reportCron))
    throw new Error(`the report schedule "${options.reportCron}" is not a cron expression, e.g. "0 * * * *"`);
  const modelsCron = options.modelsCron === undefined ? '* * * * *' : options.modelsCron;
  if (modelsCron !== null && !isCronExpression(modelsCron))
    throw new Error(`the model refresh schedule "${modelsCron}" is not a cron expression, e.g. "* * * * *"`);
  const log = options.logger ?? pino({ level: 'warn' }, process.stderr);
  const warehouse = await Warehouse.open(options.warehousePath ?? 'data/warehouse.duckdb', {
    ...(options.modelsDir ? { modelsDir: options.modelsDir } : {}),
    ...(options.memoryLimit ? { memoryLimit: options.memoryLimit } : {}),
  });
  const exportDir = resolve(options.exportDir ?? 'data/exports');
  const reportDir = resolve(options.reportDir ?? 'data/reports');
  await lockDownWarehouse(warehouse, [warehouse.stagingDir, exportDir, reportDir]);
  const fatal =
    options.onFatal ??
    ((error: unknown) => log.fatal({ err: error }, 'cannot write the warehouse; a restart resumes'));
  const writer = new BatchWriter(warehouse, {
    maxDelayMs: options.flushMs ?? 500,
    // A replay burst lands in writes of up to this many rows (not 2,000): fewer statements and
    // commits per event, while one write still commits within about a second.
    maxWriteRows: 20_000,
    onError: fatal,
  });
  const client = new MarketClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...(options.readBudget ? { limits: { read: options.readBudget } } : {}),
  });
  const games = options.games ?? [APP_IDS.cs2, APP_IDS.dota2, APP_IDS.rust];
  const tasks: SourceTask[] = [];
  let stream: StreamSource | null = null;
  let snapshot: SourceTask | null = null;
  if (games.includes(APP_IDS.cs2)) {
    stream = new StreamSource(client, warehouse, writer, { watchdogMs: options.watchdogMs ?? 40_000, log });
    tasks.push(createPollTask(client, warehouse, writer, { intervalMs: options.pollIntervalMs ?? 30_000 }));
    snapshot = createSnapshotTask(client, warehouse, writer, log);
  }
  for (const appId of games) {
    const intervalMs =
      appId === APP_IDS.cs2 ? (options.cs2SweepIntervalMs ?? 600_000) : (options.sweepIntervalMs ?? 120_000);
    tasks.push(createSweepTask(client, warehouse, writer, { appId, intervalMs }));
    tasks.push(
      createPricesTask(client, writer, { appId, intervalMs: options.pricesIntervalMs ?? 300_000, log }),
    );
  }
  tasks.push(createFxTask(client, writer, { intervalMs: options.fxIntervalMs ?? 300_000 }));
  if (options.account ?? true)
    tasks.push(
      createAccountTask(client, warehouse, writer, {
        games,
        intervalMs: options.accountIntervalMs ?? 30_000,
      }),
    );

  await stream?.start();
  const jobs: Job[] = tasks.map((task) => startSourceJob(task, log));
  if (snapshot) jobs.push(startSourceJob(snapshot, log, { cron: options.snapshotCron ?? '* * * * *' }));
  const models = modelsCron === null ? null : createModelsTask(warehouse);
  if (models && modelsCron !== null)
    jobs.push(startSourceJob(models, log, { cron: modelsCron, failure: 'model refresh failed' }));
  /** A task on a cron schedule that first runs at its first tick, not at start. */
  const scheduled = (cron: string | undefined, make: () => SourceTask, failure: string) => {
    if (cron) jobs.push(startSourceJob(make(), log, { cron, runAtStart: false, failure }));
  };
  // Their boards count every export and report of this process, scheduled or not.
  const work = watchWarehouseWork(warehouse);
  scheduled(
    options.exportCron,
    () => createExportTask(warehouse, exportDir, work.exports),
    'scheduled export failed',
  );
  scheduled(
    options.reportCron,
    () => createReportTask(warehouse, reportDir, work.reports),
    'scheduled report failed',
  );
  const boards = () => [
    ...(stream ? [stream.board] : []),
    ...(snapshot ? [snapshot.board] : []),
    ...tasks.map((t) => t.board),
    ...(models ? [models.board] : []),
    work.exports,
    work.reports,
  ];
  const status = () => boards().map((b) => ({ ...b.status }));
  const control = await startControlServer(warehouse, status, {
    log,
    exportDirs: [exportDir],
    ...(options.queryTimeoutMs ? { queryTimeoutMs: options.queryTimeoutMs } : {}),
  });
  return {
    warehouse,
    control,
    status,
    async stop() {
      // The control endpoint first: it interrupts the queries in progress.
      await Promise.all([control.close(), ...jobs.map((job) => job.stop()), stream?.stop()]);
      await writer.close();
      await warehouse.close();
      await client.close();
    },
  };
}
