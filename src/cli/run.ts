/**
 * `market run` (`npm start`): the main job on the embedded default. It starts the sandbox service
 * with its simulator on a local database (loopback webhook URLs allowed, with the certificate of
 * `market webhooks listen` trusted), makes a funded trading account and key for the user, and a
 * demo trader on an account of its own, which the collector lands into the warehouse (exporting
 * the models to parquet and writing a market report every hour), until SIGINT or SIGTERM.
 */
import { dirname, isAbsolute, join, relative } from 'node:path';
import { startCollector } from '../collector/index.js';
import { ALL_APP_IDS, newPlatformId, startService } from '../service/index.js';
import { projectPath } from '../shared/project-root.js';
import { collectorOptionsOf } from './collect.js';
import { controlEndpointOf } from './control-endpoint.js';
import { startDemoTrader } from './demo-trader.js';
import { parseFlags } from './flags.js';
import { runHistoryEndpointOf } from './history-endpoint.js';
import { createLogger } from './logger.js';
import { loopbackTls } from './loopback-tls.js';
import { mainJobAccounts } from './main-job-accounts.js';
import { checkModelsFolder } from './open-warehouse.js';
import { runFlags } from './options.js';
import { logStatus } from './status-log.js';
import { stopOnSignal } from './stop-on-signal.js';

/** A stop closes everything within this; a supervisor's own limit is often 10 s. */
const STOP_DEADLINE_MS = 4_000;

/** Starts everything and prints how to use it. */
export async function run(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(runFlags, flags);
  checkModelsFolder(config.modelsDir);
  // A bad token file is refused before anything starts.
  const control = await controlEndpointOf(config);
  const dataDir = dirname(config.db);
  const history = await runHistoryEndpointOf(config, join(dataDir, 'history-keys.txt'));
  const tlsDir = join(dataDir, 'webhook-tls');
  const tls = await loopbackTls(tlsDir);
  const service = await startService({
    port: config.port,
    dbPath: config.db,
    listings: config.listings,
    sandbox: true,
    logger: { level: 'warn', stream: process.stderr },
    webhooks: { allowLoopback: true, loopbackCa: tls.cert },
  });
  const accounts = service.context.accounts;
  const newAccount = (label: string) =>
    accounts.createAccount({
      label,
      balanceCents: 100_000,
      trading: true,
      appIds: ALL_APP_IDS,
      steamId: newPlatformId(),
    });
  // Kept across restarts: new accounts at every start would add up in the warehouse's account models.
  const { accounts: kept } = await mainJobAccounts(
    join(dataDir, 'main-job-accounts.json'),
    accounts,
    async () => {
      // The user's account is theirs alone: the demo trader's orders never move its balance.
      const you = await newAccount('you');
      // The demo trader and the collector use keys of their own on the trader's account (limits count
      // per key): the collector's account source lands the trader's activity.
      const trader = await newAccount('demo trader');
      const collector = await accounts.createKey(trader.account.id, { label: 'collector' });
      return {
        you: { accountId: you.account.id, rawKey: you.rawKey },
        trader: { accountId: trader.account.id, rawKey: trader.rawKey },
        collectorKey: collector.rawKey,
      };
    },
  );
  const { rawKey } = kept.you;
  const { collectorKey, trader } = kept;
  const warehousePath = config.warehouse;
  const exportDir = config.exportDir ?? join(dirname(warehousePath), 'exports');
  const reportDir = config.reportDir ?? join(dirname(warehousePath), 'reports');
  const log = createLogger('collector', config.logLevel, config.logFormat);
  const collector = await startCollector({
    ...collectorOptionsOf(
      {
        ...config,
        exportDir,
        reportDir,
        // off (null) is no schedule, as an absent one is for `market collect`.
        exportCron: config.exportCron ?? undefined,
        reportCron: config.reportCron ?? undefined,
      },
      { baseUrl: service.baseUrl, apiKey: collectorKey },
    ),
    control,
    history: history.options,
    logger: log,
    onFatal: (error) => {
      log.fatal({ err: error }, 'the collector cannot write the warehouse');
      process.exit(1);
    },
  }).catch(async (error: unknown) => {
    // A control port in use, say: the service closes its database before the command exits.
    await service.close();
    throw error;
  });
  const demo = startDemoTrader({
    baseUrl: service.baseUrl,
    accountId: trader.accountId,
    apiKey: trader.rawKey,
    log,
  });
  const stopStatus = logStatus(log, config.statusSeconds, collector.status);
  stopOnSignal(
    'the service, the collector and the demo trader',
    async () => {
      stopStatus();
      await demo.stop();
      // Each closes its own DuckDB file (a checkpoint each): side by side, the stop takes the longer.
      await Promise.all([collector.stop(), service.close()]);
    },
    STOP_DEADLINE_MS,
  );
  // Printed once a signal stops everything cleanly: whoever reads these lines may send one at once.
  process.stdout.write(
    howToUse({
      baseUrl: service.baseUrl,
      rawKey,
      traderAccount: trader.accountId,
      warehousePath,
      exportDir,
      reportDir,
      tlsDir,
      history: `http://${config.historyHost}:${collector.history?.port}/v1/history`,
      historyKey: history.key,
    }),
  );
}

/** The lines printed once everything runs. */
function howToUse(at: {
  baseUrl: string;
  rawKey: string;
  traderAccount: string;
  warehousePath: string;
  exportDir: string;
  reportDir: string;
  tlsDir: string;
  history: string;
  historyKey: string;
}): string {
  const { baseUrl, rawKey, warehousePath, exportDir, reportDir } = at;
  const auth = `-H "Authorization: Bearer ${rawKey}"`;
  const tlsFlag = at.tlsDir === join('data', 'webhook-tls') ? '' : ` --tls-dir ${at.tlsDir}`;
  const market = marketCommand();
  return [
    baseUrl,
    `your API key (an account of your own with $1,000 and trading on): ${rawKey}`,
    `the commands below run the built CLI with node: it starts in under a second and Ctrl-C reaches it (npx adds seconds and does not pass a SIGINT on); npm link makes it market on your PATH`,
    `try: curl ${auth} "${baseUrl}/listings?limit=2"`,
    `buy one: curl -X POST ${auth} -H "content-type: application/json" -d '{"listing_ids":["<id>"],"custom_id":"first-order"}' "${baseUrl}/orders"`,
    `webhooks of your orders, printed here and forwarded: ${market} webhooks listen --base-url ${baseUrl} --api-key ${rawKey}${tlsFlag} [--forward-to http://127.0.0.1:3000/hook]`,
    `collecting into ${warehousePath}; query it with: ${market} sql --warehouse ${warehousePath} "SELECT count(*) FROM live_listings"`,
    `price history of the warehouse (candles, items; keys in --history-keys-file): curl --compressed -H "Authorization: Bearer ${at.historyKey}" "${at.history}/items?q=AK-47"`,
    `parquet exports of the models every hour into ${exportDir}; one now: ${market} export --warehouse ${warehousePath} --to ${exportDir}`,
    `a market report (HTML with charts) every hour into ${reportDir}, newest at ${join(reportDir, 'latest.html')}; one now: ${market} report --warehouse ${warehousePath} --out ${reportDir}`,
    `a demo trader on an account of its own (${at.traderAccount}) buys three times a minute (some held, every fourth declined), lists a third of what it receives on P2P for a demo buyer account and sells a third to the Instant Sell bots; the collector lands its ledger, orders, P2P listings and sell orders into account_transactions, account_states and the fct_account_daily, fct_order_outcomes, fct_p2p_sales models`,
    'stop with Ctrl-C, or SIGINT / SIGTERM to this process (npm start passes it on)',
    '',
  ].join('\n');
}

/**
 * The built CLI run by node, as the user's shell reaches it (npm start runs here, in the package
 * folder, and names the user's folder INIT_CWD): starting well under a second, where `npx market`
 * costs npm's start-up, and receiving a Ctrl-C or a SIGINT itself, where npx does not pass it on.
 */
function marketCommand(): string {
  const main = projectPath('.build', 'src', 'cli', 'main.js');
  const fromShell = relative(process.env.INIT_CWD ?? process.cwd(), main);
  const path = fromShell.startsWith('..') || isAbsolute(fromShell) ? main : fromShell;
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}
