/** `market serve`: runs the service until SIGINT or SIGTERM, then shuts down cleanly. */
import { startService } from '../service/service.js';
import { parseConfig, serveConfigSchema } from './config.js';

/** Starts the service and prints its base URL on a line of its own. */
export async function serve(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(serveConfigSchema, flags);
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
  });
  process.stdout.write(`${service.baseUrl}\n`);
  stopOnSignal(() => service.close());
}

/** Runs `close` once on the first SIGINT or SIGTERM, then exits 0 (1 if closing failed). */
export function stopOnSignal(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`market: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
