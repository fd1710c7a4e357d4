/** `market collect`: runs the collector daemon until SIGINT or SIGTERM, then drains, flushes and exits 0. */
import { type CollectorOptions, startCollector } from '../collector/index.js';
import { CliError } from './cli-error.js';
import { controlEndpointOf } from './control-endpoint.js';
import { type ConfigOf, parseFlags } from './flags.js';
import { historyEndpointOf } from './history-endpoint.js';
import { createLogger } from './logger.js';
import { checkModelsFolder } from './open-warehouse.js';
import { collectFlags, type collectorFlags } from './options.js';
import { logStatus } from './status-log.js';
import { stopOnSignal } from './stop-on-signal.js';

/** Starts the daemon and logs its status on stderr when it changes, else every `--status-seconds`. */
export async function collect(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(collectFlags, flags);
  checkModelsFolder(config.modelsDir);
  const log = createLogger('collector', config.logLevel, config.logFormat);
  const control = await controlEndpointOf(config);
  const history = historyEndpointOf(config);
  let collector: Awaited<ReturnType<typeof startCollector>>;
  try {
    collector = await startCollector({
      ...collectorOptionsOf(config, { baseUrl: config.baseUrl, apiKey: config.apiKey }),
      control,
      ...(history ? { history } : {}),
      logger: log,
      onFatal: (error) => {
        log.fatal({ err: error }, 'cannot write the warehouse, stopping (a restart resumes)');
        process.exit(1);
      },
    });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  log.info(
    {
      baseUrl: config.baseUrl,
      warehouse: config.warehouse,
      ...(collector.history
        ? { history: `http://${config.historyHost}:${collector.history.port}/v1/history` }
        : {}),
    },
    'collecting',
  );
  const stopStatus = logStatus(log, config.statusSeconds, collector.status);
  stopOnSignal('the collector', async () => {
    stopStatus();
    await collector.stop();
  });
}

/**
 * The collector's option groups from its flags (already in the collector's units), reading the
 * API at `api`: what `market collect` was given, or the service `market run` started.
 */
export function collectorOptionsOf(
  config: ConfigOf<typeof collectorFlags>,
  api: { baseUrl: string; apiKey: string },
): Omit<CollectorOptions, 'control' | 'logger' | 'onFatal'> {
  const { readBudget, warehouse, warehouseMemory, exportCron, reportCron, lakeCron, ...rest } = config;
  return {
    api: { ...api, readBudget },
    freshness: rest.freshness,
    warehouse: {
      path: warehouse,
      memoryLimit: warehouseMemory,
      ...(rest.lakeDir ? { lakeDir: rest.lakeDir } : {}),
      ...(rest.modelsDir ? { modelsDir: rest.modelsDir } : {}),
    },
    sources: {
      games: rest.games,
      snapshotCron: rest.snapshotCron,
      pollIntervalMs: rest.pollIntervalMs,
      sweepIntervalMs: rest.sweepIntervalMs,
      cs2SweepIntervalMs: rest.cs2SweepIntervalMs,
      pricesIntervalMs: rest.pricesIntervalMs,
      fxIntervalMs: rest.fxIntervalMs,
      watchdogMs: rest.watchdogMs,
      account: rest.account,
      accountIntervalMs: rest.accountIntervalMs,
    },
    // The folders are given even with no schedule: exports through the collector go there.
    work: {
      modelsCron: rest.modelsCron,
      exportDir: rest.exportDir,
      reportDir: rest.reportDir,
      queryTimeoutMs: rest.queryTimeoutMs,
      ...(exportCron ? { exportCron } : {}),
      ...(reportCron ? { reportCron } : {}),
      lakeCron,
      hotDays: rest.hotDays,
    },
  };
}
