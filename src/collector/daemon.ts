/**
 * The collector daemon: every source of one API deployment landing into one warehouse, until
 * stopped; then it drains and flushes. Only one process may write a warehouse: a second collector
 * on the same file is refused by the warehouse's lock with a clear message. Its options and their
 * defaults are in collector-options.ts.
 */
import { resolve } from 'node:path';
import pino from 'pino';
import { Agent } from 'undici';
import { MarketClient } from '../client/index.js';
import { APP_IDS } from '../contract/common.js';
import type { Job } from '../shared/jobs/index.js';
import { BatchWriter, Warehouse } from '../warehouse/index.js';
import { WAREHOUSE_DEFAULTS } from '../warehouse/warehouse-options.js';
import { COLLECTOR_DEFAULTS, type CollectorOptions } from './collector-options.js';
import { lockDownWarehouse } from './control/lock-down.js';
import { type ControlServer, startControlServer } from './control/server.js';
import { defaultFreshness, type FreshnessRules, freshnessOf, thresholdsOf } from './freshness.js';
import { landDowntime } from './history/downtime.js';
import { readHistoryKeys } from './history/keys-file.js';
import { type HistoryServer, startHistoryServer } from './history/server.js';
import { CollectorMetrics } from './metrics/collector-metrics.js';
import { meterRequests } from './metrics/request-meter.js';
import { currentSource, inSource } from './metrics/source-context.js';
import { type SourceTask, startSourceJob } from './source-job.js';
import type { SourceStatus, StatusBoard } from './source-status.js';
import { createAccountTask } from './sources/account-source.js';
import { createPollTask } from './sources/poll-source.js';
import { createFxTask, createPricesTask, createSnapshotTask } from './sources/price-sources.js';
import { StreamSource } from './sources/stream-source.js';
import { createSweepTask } from './sources/sweep-source.js';
import { UpstreamClock } from './upstream-clock.js';
import {
  createExportTask,
  createLakeTask,
  createModelsTask,
  createReportTask,
  watchWarehouseWork,
} from './warehouse-tasks.js';

/** A running collector. */
export interface RunningCollector {
  warehouse: Warehouse;
  control: ControlServer;
  /** The price history endpoint, when one was asked for. */
  history: HistoryServer | null;
  /** Each source's status, with its freshness now. */
  status(): SourceStatus[];
  metrics: CollectorMetrics;
  stop(): Promise<void>;
}

/** Opens the warehouse, resumes every source from its committed state, and starts them. */
export async function startCollector(options: CollectorOptions): Promise<RunningCollector> {
  const api = { ...COLLECTOR_DEFAULTS.api, ...options.api };
  const file = { ...COLLECTOR_DEFAULTS.warehouse, ...options.warehouse };
  const sources = { ...COLLECTOR_DEFAULTS.sources, ...options.sources };
  const work = { ...COLLECTOR_DEFAULTS.work, ...options.work };
  const controlEndpoint = { ...COLLECTOR_DEFAULTS.control, ...options.control };
  const log = options.logger ?? pino({ level: 'warn' }, process.stderr);
  // A keys file others may read is refused before anything opens.
  const historyKeys = options.history ? await readHistoryKeys(options.history.keysFile) : null;
  const warehouse = await Warehouse.open(file.path, {
    ...(file.modelsDir ? { modelsDir: file.modelsDir } : {}),
    memoryLimit: file.memoryLimit,
    // The daemon's lower default bounds its steady state; a full build gets a one-off command's
    // (a limit given otherwise holds for everything).
    ...(file.memoryLimit === COLLECTOR_DEFAULTS.warehouse.memoryLimit
      ? { fullBuildMemoryLimit: WAREHOUSE_DEFAULTS.fullBuildMemoryLimit }
      : {}),
    ...(file.lakeDir ? { lakeDir: file.lakeDir } : {}),
  });
  const exportDir = resolve(work.exportDir);
  const reportDir = resolve(work.reportDir);
  const lakeDir = warehouse.lakeDir === null ? [] : [warehouse.lakeDir];
  await lockDownWarehouse(warehouse, [warehouse.stagingDir, exportDir, reportDir, ...lakeDir]);
  const fatal =
    options.onFatal ??
    ((error: unknown) => log.fatal({ err: error }, 'cannot write the warehouse; a restart resumes'));
  const upstreamClock = new UpstreamClock();
  const writer = new BatchWriter(warehouse, {
    upstreamOffsetMs: () => upstreamClock.offsetMs(),
    maxDelayMs: file.flushMs,
    // A replay burst lands in writes of up to this many rows (not 2,000): fewer statements and
    // commits per event, while one write still commits within about a second.
    maxWriteRows: 20_000,
    onError: fatal,
  });
  await landDowntime(warehouse, writer);
  const startedMs = Date.now();
  const freshness: FreshnessRules = { ...defaultFreshness(sources), ...options.freshness };
  let everyBoard: () => StatusBoard[] = () => [];
  const status = () => everyBoard().map((b) => withFreshness(b, freshness, startedMs));
  const metrics = new CollectorMetrics(status, warehouse.path, upstreamClock, () => warehouse.memoryBytes());
  // Every request goes through the meter, labelled with the source it is made for.
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 30_000 } }).compose(
    meterRequests(metrics, upstreamClock),
  );
  let dispatcherClosed = false;
  const client = new MarketClient({
    baseUrl: api.baseUrl,
    apiKey: api.apiKey,
    limits: { read: api.readBudget },
    dispatcher,
    onRetry: () => metrics.retried(currentSource()),
  });
  const { games } = sources;
  const tasks: SourceTask[] = [];
  let stream: StreamSource | null = null;
  let snapshot: SourceTask | null = null;
  if (games.includes(APP_IDS.cs2)) {
    stream = new StreamSource(client, warehouse, writer, {
      watchdogMs: sources.watchdogMs,
      log,
      upstreamOffsetMs: () => upstreamClock.offsetMs(),
    });
    tasks.push(createPollTask(client, warehouse, writer, { intervalMs: sources.pollIntervalMs, log }));
    snapshot = createSnapshotTask(client, warehouse, writer, log);
  }
  for (const appId of games) {
    const intervalMs = appId === APP_IDS.cs2 ? sources.cs2SweepIntervalMs : sources.sweepIntervalMs;
    tasks.push(createSweepTask(client, warehouse, writer, { appId, intervalMs, log }));
    tasks.push(
      createPricesTask(client, warehouse, writer, { appId, intervalMs: sources.pricesIntervalMs, log }),
    );
  }
  tasks.push(createFxTask(client, warehouse, writer, { intervalMs: sources.fxIntervalMs, log }));
  if (sources.account)
    tasks.push(
      createAccountTask(client, warehouse, writer, { games, log, intervalMs: sources.accountIntervalMs }),
    );

  await inSource('stream', () => stream?.start());
  const jobs: Job[] = tasks.map((task) => startSourceJob(task, log));
  if (snapshot) jobs.push(startSourceJob(snapshot, log, { cron: sources.snapshotCron }));
  const { modelsCron } = work;
  const models =
    modelsCron === null ? null : createModelsTask(warehouse, (ms) => metrics.workDone('models', ms), writer);
  if (models && modelsCron !== null)
    jobs.push(startSourceJob(models, log, { cron: modelsCron, failure: 'model refresh failed' }));
  /** A task on a cron schedule that first runs at its first tick, not at start. */
  const scheduled = (cron: string | undefined, make: () => SourceTask, failure: string) => {
    if (cron) jobs.push(startSourceJob(make(), log, { cron, runAtStart: false, failure }));
  };
  // Their boards count every export and report of this process, scheduled or not.
  const boards = watchWarehouseWork(warehouse, (kind, ms) => metrics.workDone(kind, ms));
  scheduled(
    work.exportCron,
    () => createExportTask(warehouse, exportDir, boards.exports),
    'scheduled export failed',
  );
  scheduled(
    work.lakeCron ?? undefined,
    () => createLakeTask(warehouse, work.hotDays),
    'scheduled lake move failed',
  );
  scheduled(
    work.reportCron,
    () => createReportTask(warehouse, reportDir, boards.reports),
    'scheduled report failed',
  );
  everyBoard = () => [
    ...(stream ? [stream.board] : []),
    ...(snapshot ? [snapshot.board] : []),
    ...tasks.map((t) => t.board),
    ...(models ? [models.board] : []),
    boards.exports,
    boards.reports,
  ];
  const stopAll = async (control?: ControlServer, history?: HistoryServer | null) => {
    // The endpoints first: they interrupt the queries in progress.
    await Promise.all([control?.close(), history?.close(), ...jobs.map((job) => job.stop()), stream?.stop()]);
    await writer.close();
    await warehouse.close();
    await client.close();
    // Like the client's, a second stop closes nothing twice (undici refuses to).
    if (!dispatcherClosed) {
      dispatcherClosed = true;
      await dispatcher.close();
    }
  };
  let control: ControlServer | undefined;
  let history: HistoryServer | null = null;
  try {
    control = await startControlServer(warehouse, status, {
      ...controlEndpoint,
      log,
      metrics,
      upstreamOffsetMs: () => upstreamClock.offsetMs(),
      exportDirs: [exportDir],
      queryTimeoutMs: work.queryTimeoutMs,
    });
    if (options.history && historyKeys) {
      const { keysFile: _, ...endpoint } = options.history;
      history = await startHistoryServer(warehouse, { ...endpoint, keys: historyKeys, log });
    }
  } catch (error) {
    // A port in use: what started stops, and the warehouse is left as a stop leaves it.
    await stopAll(control);
    throw error;
  }
  const started = control;
  return { warehouse, control: started, history, status, metrics, stop: () => stopAll(started, history) };
}

/** The board's status with its freshness now (warehouse work has no thresholds, so none). */
function withFreshness(board: StatusBoard, rules: FreshnessRules, startedMs: number): SourceStatus {
  const status = board.snapshot();
  const thresholds = thresholdsOf(rules, status.name);
  if (thresholds) status.freshness = freshnessOf(thresholds, board.lastSuccessMs, startedMs, Date.now());
  return status;
}
