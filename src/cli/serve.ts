/** `market serve`: runs the service until SIGINT or SIGTERM, then shuts down cleanly. */
import { readFileSync } from 'node:fs';
import { startService } from '../service/index.js';
import { CliError } from './cli-error.js';
import { type ConfigOf, parseFlags } from './flags.js';
import { serveFlags } from './options.js';
import { stopOnSignal } from './stop-on-signal.js';

/** Starts the service and prints its base URL on a line of its own. */
export async function serve(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(serveFlags, flags);
  const service = await startService({
    host: config.host,
    port: config.port,
    dbPath: config.db,
    seed: config.seed,
    listings: config.listings,
    sandbox: config.sandbox,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    churnRate: config.churnRate,
    churnPaused: config.churnPaused,
    rateLimits: { read: config.readLimit, orders: config.orderLimit },
    retention: { retentionMs: config.logRetentionHours * 3_600_000, maxRows: config.logMaxRows },
    logger: { level: config.logLevel, stream: process.stderr },
    webhooks: webhookOptions(config),
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
  });
  stopOnSignal('the service', () => service.close());
  process.stdout.write(`${service.baseUrl}\n`);
}

/**
 * The webhook loopback allowance: only with --sandbox, and --webhook-ca only with it; the CA is
 * read once here.
 */
function webhookOptions(config: ConfigOf<typeof serveFlags>) {
  if (config.webhookCa !== undefined && !config.webhookAllowLoopback)
    throw new CliError('--webhook-ca is used only with --webhook-allow-loopback');
  if (!config.webhookAllowLoopback) return {};
  if (!config.sandbox)
    throw new CliError('--webhook-allow-loopback needs --sandbox; production never allows it');
  if (config.webhookCa === undefined) return { allowLoopback: true };
  try {
    return { allowLoopback: true, loopbackCa: readFileSync(config.webhookCa, 'utf8') };
  } catch (error) {
    throw new CliError(`cannot read --webhook-ca ${config.webhookCa}: ${(error as Error).message}`);
  }
}
