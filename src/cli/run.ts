/**
 * `market run` (`npm start`): the main job on the embedded default. It starts the sandbox service
 * with its simulator on a local database, makes a funded account and key, and runs the collector
 * against it into the warehouse, exporting the models to parquet every hour, until interrupted.
 */
import { dirname, join } from 'node:path';
import { startCollector } from '../collector/daemon.js';
import { startService } from '../service/service.js';
import { CliError } from './cli-error.js';
import { createLogger, logStatusEvery } from './logger.js';
import { stopOnSignal } from './serve.js';

interface RunFlags {
  port?: string;
  db?: string;
  listings?: string;
  warehouse?: string;
}

/** Starts everything and prints how to use it. */
export async function run(flags: RunFlags): Promise<void> {
  const port = Number(flags.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--port must be 0-65535');
  const service = await startService({
    port,
    dbPath: flags.db ?? 'data/market.duckdb',
    listings: Number(flags.listings ?? 20_000),
    sandbox: true,
    logger: { level: 'warn', stream: process.stderr },
  });
  const { rawKey } = await service.context.accounts.createAccount({
    label: 'demo',
    balanceCents: 100_000,
    trading: true,
    appIds: [730, 570, 252490],
  });
  const warehousePath = flags.warehouse ?? 'data/warehouse.duckdb';
  const exportDir = join(dirname(warehousePath), 'exports');
  const log = createLogger('collector', 'info');
  const collector = await startCollector({
    baseUrl: service.baseUrl,
    apiKey: rawKey,
    warehousePath,
    exportCron: '0 * * * *',
    exportDir,
    logger: log,
    onFatal: (error) => {
      log.fatal({ err: error }, 'the collector cannot write the warehouse');
      process.exit(1);
    },
  });
  process.stdout.write(
    [
      service.baseUrl,
      `demo API key: ${rawKey}`,
      `try: curl -H "Authorization: Bearer ${rawKey}" "${service.baseUrl}/listings?limit=2"`,
      `collecting into ${warehousePath}; query it with: npx market sql "SELECT count(*) FROM live_listings"`,
      `parquet exports of the models every hour into ${exportDir}; one now: npx market export --warehouse ${warehousePath} --to ${exportDir}`,
      'press Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  const stopStatus = logStatusEvery(log, 30, collector.status);
  stopOnSignal(async () => {
    stopStatus();
    await collector.stop();
    await service.close();
  });
}
