/** `market collect`: runs the collector daemon until SIGINT or SIGTERM, then drains, flushes and exits 0. */
import { z } from 'zod';
import { startCollector } from '../collector/daemon.js';
import { isCronExpression } from '../shared/jobs/index.js';
import { CliError } from './cli-error.js';
import { logFormat, logLevel, parseConfig, warehouseFlags } from './config.js';
import { createLogger, logStatusEvery } from './logger.js';
import { stopOnSignal } from './stop-on-signal.js';

const collectConfigSchema = z.object({
  baseUrl: z.url({ message: 'give --base-url (or MARKET_BASE_URL), e.g. http://127.0.0.1:8080/v1' }),
  apiKey: z
    .string({ message: 'give --api-key (or MARKET_API_KEY)' })
    .startsWith('svc_pub_', 'API keys start with svc_pub_'),
  ...warehouseFlags,
  games: z
    .string()
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(z.array(z.number().int().positive()).min(1)),
  statusSeconds: z.coerce.number().min(0),
  snapshotCron: z.string().refine(isCronExpression, 'give a cron expression, e.g. "* * * * *"'),
  pollSeconds: z.coerce.number().positive(),
  sweepSeconds: z.coerce.number().positive(),
  cs2SweepSeconds: z.coerce.number().positive(),
  pricesSeconds: z.coerce.number().positive(),
  fxSeconds: z.coerce.number().positive(),
  accountSeconds: z.coerce.number().positive(),
  account: z.boolean().default(true),
  watchdogSeconds: z.coerce.number().positive(),
  readBudget: z.coerce.number().int().positive(),
  exportCron: z
    .string()
    .refine(isCronExpression, 'give a cron expression, e.g. "0 * * * *" (hourly)')
    .optional(),
  exportDir: z.string().min(1),
  reportCron: z
    .string()
    .refine(isCronExpression, 'give a cron expression, e.g. "0 * * * *" (hourly)')
    .optional(),
  reportDir: z.string().min(1),
  queryTimeout: z.coerce.number().positive(),
  modelsCron: z
    .string()
    .refine((v) => v === 'off' || isCronExpression(v), 'give a cron expression, e.g. "* * * * *", or off'),
  logLevel,
  logFormat,
});

/** Starts the daemon and prints a status line on stderr every `--status-seconds`. */
export async function collect(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(collectConfigSchema, flags);
  const log = createLogger('collector', config.logLevel, config.logFormat);
  let collector: Awaited<ReturnType<typeof startCollector>>;
  try {
    collector = await startCollector({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      warehousePath: config.warehouse,
      memoryLimit: config.warehouseMemory,
      games: config.games,
      snapshotCron: config.snapshotCron,
      pollIntervalMs: config.pollSeconds * 1000,
      sweepIntervalMs: config.sweepSeconds * 1000,
      cs2SweepIntervalMs: config.cs2SweepSeconds * 1000,
      pricesIntervalMs: config.pricesSeconds * 1000,
      fxIntervalMs: config.fxSeconds * 1000,
      account: config.account,
      accountIntervalMs: config.accountSeconds * 1000,
      watchdogMs: config.watchdogSeconds * 1000,
      readBudget: config.readBudget,
      // The folders are given even with no schedule: exports through the collector go there.
      exportDir: config.exportDir,
      reportDir: config.reportDir,
      ...(config.exportCron ? { exportCron: config.exportCron } : {}),
      ...(config.reportCron ? { reportCron: config.reportCron } : {}),
      queryTimeoutMs: Math.round(config.queryTimeout * 1000),
      modelsCron: config.modelsCron === 'off' ? null : config.modelsCron,
      logger: log,
      onFatal: (error) => {
        log.fatal({ err: error }, 'cannot write the warehouse, stopping (a restart resumes)');
        process.exit(1);
      },
    });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  log.info({ baseUrl: config.baseUrl, warehouse: config.warehouse }, 'collecting');
  const stopStatus = logStatusEvery(log, config.statusSeconds, collector.status);
  stopOnSignal('the collector', async () => {
    stopStatus();
    await collector.stop();
  });
}
