/**
 * `market run` (`npm start`): the main job on the embedded default. It starts the sandbox service
 * with its simulator on a local database, makes a funded trading demo account and key for the user,
 * with separate keys of that account for the collector and the demo trader, runs the demo trader
 * and the collector (its account source landing the demo account's activity) into the warehouse,
 * exporting the models to parquet and writing a market report every hour, until interrupted.
 */
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { startCollector } from '../collector/daemon.js';
import { newPlatformId } from '../service/core/platform-ids.js';
import { ALL_APP_IDS } from '../service/market/games.js';
import { startService } from '../service/service.js';
import { int, parseConfig, warehouseFlags } from './config.js';
import { startDemoTrader } from './demo-trader.js';
import { createLogger, logStatusEvery } from './logger.js';
import { stopOnSignal } from './serve.js';

const runConfigSchema = z.object({
  port: int(0, 65535),
  db: z.string().min(1),
  listings: int(0, 5_000_000),
  ...warehouseFlags,
});

/** Starts everything and prints how to use it. */
export async function run(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(runConfigSchema, flags);
  const service = await startService({
    port: config.port,
    dbPath: config.db,
    listings: config.listings,
    sandbox: true,
    logger: { level: 'warn', stream: process.stderr },
  });
  const { rawKey, account } = await service.context.accounts.createAccount({
    label: 'demo',
    balanceCents: 100_000,
    trading: true,
    appIds: ALL_APP_IDS,
    steamId: newPlatformId(),
  });
  // The collector and the demo trader use keys of their own on the demo account (limits count per
  // key), so the user's requests never spend their budgets, and the collector's account source
  // lands the demo account's activity.
  const accounts = service.context.accounts;
  const { rawKey: collectorKey } = await accounts.createKey(account.id, { label: 'collector' });
  const { rawKey: traderKey } = await accounts.createKey(account.id, { label: 'demo trader', trading: true });
  const warehousePath = config.warehouse;
  const exportDir = join(dirname(warehousePath), 'exports');
  const reportDir = join(dirname(warehousePath), 'reports');
  const log = createLogger('collector', 'info');
  const collector = await startCollector({
    baseUrl: service.baseUrl,
    apiKey: collectorKey,
    warehousePath,
    memoryLimit: config.warehouseMemory,
    exportCron: '0 * * * *',
    exportDir,
    reportCron: '0 * * * *',
    reportDir,
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
      `buy one: curl -X POST -H "Authorization: Bearer ${rawKey}" -H "content-type: application/json" -d '{"listing_ids":["<id>"],"custom_id":"first-order"}' "${service.baseUrl}/orders"`,
      `collecting into ${warehousePath}; query it with: npx market sql "SELECT count(*) FROM live_listings"`,
      `parquet exports of the models every hour into ${exportDir}; one now: npx market export --warehouse ${warehousePath} --to ${exportDir}`,
      `a market report (HTML with charts) every hour into ${reportDir}, newest at ${join(reportDir, 'latest.html')}; one now: npx market report --warehouse ${warehousePath} --out ${reportDir}`,
      'a demo trader buys with the demo account three times a minute (some held, every fourth declined), lists a third of what it receives on P2P for a demo buyer account and sells a third to the Instant Sell bots: its ledger, orders, P2P listings and sell orders land in account_transactions, account_states and the fct_account_daily, fct_order_outcomes, fct_p2p_sales models',
      'press Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  const trader = startDemoTrader({ baseUrl: service.baseUrl, accountId: account.id, apiKey: traderKey, log });
  const stopStatus = logStatusEvery(log, 30, collector.status);
  stopOnSignal(async () => {
    stopStatus();
    await trader.stop();
    await collector.stop();
    await service.close();
  });
}
