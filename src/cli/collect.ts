/** `market collect`: runs the collector daemon until SIGINT or SIGTERM, then drains, flushes and exits 0. */
import cron from 'node-cron';
import { z } from 'zod';
import { startCollector } from '../collector/daemon.js';
import { CliError } from './cli-error.js';
import { parseConfig } from './config.js';
import { createLogger, LOG_LEVELS, logStatusEvery } from './logger.js';
import { stopOnSignal } from './serve.js';

const collectConfigSchema = z.object({
  baseUrl: z.url({ message: 'give --base-url (or MARKET_BASE_URL), e.g. http://127.0.0.1:8080/v1' }),
  apiKey: z
    .string({ message: 'give --api-key (or MARKET_API_KEY)' })
    .startsWith('svc_pub_', 'API keys start with svc_pub_'),
  warehouse: z.string().default('data/warehouse.duckdb'),
  games: z
    .string()
    .default('730,570,252490')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .pipe(z.array(z.number().int().positive()).min(1)),
  statusSeconds: z.coerce.number().min(0).default(30),
  snapshotCron: z.string().default('* * * * *'),
  pollSeconds: z.coerce.number().positive().default(30),
  sweepSeconds: z.coerce.number().positive().default(120),
  cs2SweepSeconds: z.coerce.number().positive().default(600),
  pricesSeconds: z.coerce.number().positive().default(300),
  fxSeconds: z.coerce.number().positive().default(300),
  watchdogSeconds: z.coerce.number().positive().default(40),
  readBudget: z.coerce.number().int().positive().default(95),
  exportCron: z
    .string()
    .refine((v) => cron.validate(v), 'give a cron expression, e.g. "0 * * * *" (hourly)')
    .optional(),
  exportDir: z.string().min(1).default('data/exports'),
  modelsCron: z
    .string()
    .refine((v) => v === 'off' || cron.validate(v), 'give a cron expression, e.g. "* * * * *", or off')
    .default('* * * * *'),
  logLevel: z.enum(LOG_LEVELS).default('info'),
});

/** Starts the daemon and prints a status line on stderr every `--status-seconds`. */
export async function collect(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(collectConfigSchema, flags, process.env);
  const log = createLogger('collector', config.logLevel);
  let collector: Awaited<ReturnType<typeof startCollector>>;
  try {
    collector = await startCollector({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      warehousePath: config.warehouse,
      games: config.games,
      snapshotCron: config.snapshotCron,
      pollIntervalMs: config.pollSeconds * 1000,
      sweepIntervalMs: config.sweepSeconds * 1000,
      cs2SweepIntervalMs: config.cs2SweepSeconds * 1000,
      pricesIntervalMs: config.pricesSeconds * 1000,
      fxIntervalMs: config.fxSeconds * 1000,
      watchdogMs: config.watchdogSeconds * 1000,
      readBudget: config.readBudget,
      ...(config.exportCron ? { exportCron: config.exportCron, exportDir: config.exportDir } : {}),
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
  stopOnSignal(async () => {
    stopStatus();
    await collector.stop();
  });
}
