#!/usr/bin/env node
/** The `market` command: subcommands are loaded only when they run. */
import { Command } from 'commander';
import { CliError } from './cli-error.js';

const program = new Command('market')
  .description('Marketplace API service with its simulator, and the market-data pipeline')
  .showHelpAfterError();

program
  .command('serve')
  .description('start the marketplace service (prints the base URL once it accepts connections)')
  .option('--host <host>', 'address to listen on (MARKET_HOST)')
  .option('--port <port>', 'port; 0 picks a free one (MARKET_PORT)')
  .option('--db <path>', 'service database file (MARKET_DB)')
  .option('--seed <n>', 'seed of the generated catalogue (MARKET_SEED)')
  .option('--listings <n>', 'listings generated into a new database (MARKET_LISTINGS)')
  .option('--sandbox', 'enable the /sandbox operator endpoints (MARKET_SANDBOX=1)')
  .option(
    '--trust-proxy <cidrs>',
    'comma-separated proxies whose X-Forwarded-For is believed (MARKET_TRUST_PROXY)',
  )
  .option('--churn-rate <n>', 'listings appearing or leaving per second (MARKET_CHURN_RATE)')
  .option('--churn-paused', 'start with the market simulator paused')
  .option(
    '--read-limit <n>',
    'standard requests per key and rolling minute; raise it for load tests (MARKET_READ_LIMIT)',
  )
  .option(
    '--log-retention-hours <n>',
    'hours of listing events kept for stream resume (MARKET_LOG_RETENTION_HOURS)',
  )
  .option('--log-max-rows <n>', 'most listing events kept for stream resume (MARKET_LOG_MAX_ROWS)')
  .option('--log-level <level>', 'pino log level, or silent (MARKET_LOG_LEVEL)')
  .action(async (flags) => (await import('./serve.js')).serve(flags));

const keys = program.command('keys').description('manage API keys in a service database no server holds');
keys
  .command('create')
  .description('create a key (and an account unless --account is given); prints the raw key alone')
  .option('--db <path>', 'service database file (MARKET_DB)')
  .option('--account <id>', 'add the key to this account')
  .option('--label <label>', 'label of the key', 'cli key')
  .option('--trading', 'enable trading on the key')
  .option('--ip-allowlist <cidrs>', 'comma-separated CIDRs the key accepts requests from')
  .option('--balance <usd>', 'opening balance of a new account')
  .action(async (flags) => (await import('./keys.js')).createKey(flags));
keys
  .command('list')
  .description('list keys (never the raw keys)')
  .option('--db <path>', 'service database file (MARKET_DB)')
  .action(async (flags) => (await import('./keys.js')).listKeys(flags));
keys
  .command('revoke <keyId>')
  .description('revoke a key')
  .option('--db <path>', 'service database file (MARKET_DB)')
  .action(async (keyId, flags) => (await import('./keys.js')).revokeKey(keyId, flags));

program
  .command('collect')
  .description('run the collector daemon against an API deployment until interrupted')
  .option('--base-url <url>', 'the API, ending in /v1 (MARKET_BASE_URL)')
  .option('--api-key <key>', 'an API key (MARKET_API_KEY)')
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--games <ids>', 'comma-separated app ids (MARKET_GAMES)')
  .option('--status-seconds <n>', 'seconds between status lines on stderr; 0 for none')
  .option('--snapshot-cron <expr>', 'cron schedule of the snapshot download', '* * * * *')
  .option('--poll-seconds <n>', 'between CS2 delta polls', '30')
  .option('--sweep-seconds <n>', 'between full sweeps of Dota 2 and Rust', '120')
  .option('--cs2-sweep-seconds <n>', 'between full sweeps of CS2', '600')
  .option('--prices-seconds <n>', 'between reads of the minAsk lists', '300')
  .option('--fx-seconds <n>', 'between reads of the FX rates', '300')
  .option('--watchdog-seconds <n>', 'silence after which the stream is reconnected', '40')
  .option('--read-budget <n>', 'requests per rolling minute this collector allows itself on the key', '95')
  .option(
    '--export-cron <expr>',
    'cron schedule (UTC) of parquet exports of the days since yesterday; none by default (market run: 0 * * * *)',
  )
  .option('--export-dir <path>', 'folder of the scheduled parquet exports', 'data/exports')
  .option('--models-cron <expr>', 'cron schedule (UTC) of the SQL model refresh, or off', '* * * * *')
  .option('--log-level <level>', 'pino log level of the JSON logs on stderr, or silent (MARKET_LOG_LEVEL)')
  .action(async (flags) => (await import('./collect.js')).collect(flags));

program
  .command('status')
  .description('show what each source of the running collector is doing')
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--json', 'print JSON')
  .action(async (flags) => (await import('./status.js')).status(flags));

program
  .command('sql <query>')
  .description('run ad hoc SQL on the warehouse (through the running collector, or directly)')
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--format <format>', 'table, csv or json', 'table')
  .option('--out <file.parquet>', 'write the rows to this parquet file instead of printing them')
  .action(async (query, flags) => (await import('./sql.js')).sql(query, flags));

const models = program
  .command('models')
  .description('the SQL models of sql/models (through the running collector, or directly)');
models
  .command('run')
  .description('build the models in dependency order (incremental ones from where they left off)')
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--select <models>', 'comma-separated models to build, with what they depend on')
  .option('--full-refresh', 'rebuild incremental models from scratch')
  .action(async (flags) => (await import('./models.js')).modelsRun(flags));
models
  .command('test')
  .description(
    'run the model tests (unique, not_null, accepted_values, relationships, ...); exit 1 on a failure',
  )
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--select <models>', 'comma-separated models whose tests to run')
  .action(async (flags) => (await import('./models.js')).modelsTest(flags));

program
  .command('export')
  .description('export the SQL models to parquet, one file per model and day, with a manifest')
  .option('--models <names>', 'comma-separated models; default every model with an export: line')
  .option('--to <path>', 'the export folder', 'data/exports')
  .option('--since <day>', 'first day to export, YYYY-MM-DD (UTC)')
  .option('--until <day>', 'last day to export, YYYY-MM-DD (UTC)')
  .option('--warehouse <path>', 'the warehouse DuckDB file (MARKET_WAREHOUSE)')
  .option('--models-dir <path>', 'folder of the SQL models, when no collector runs; default sql/models')
  .action(async (flags) => (await import('./export.js')).runExport(flags));

program
  .command('run')
  .description(
    'the main job on the embedded default: the sandbox service with its simulator, and the collector against it',
  )
  .option('--port <port>', 'port of the service; 0 picks a free one', '8080')
  .option('--db <path>', 'service database file')
  .option('--listings <n>', 'listings generated into a new database')
  .option('--warehouse <path>', 'the warehouse DuckDB file', 'data/warehouse.duckdb')
  .action(async (flags) => (await import('./run.js')).run(flags));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`market: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`market: unexpected failure\n${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
