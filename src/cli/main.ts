#!/usr/bin/env node
/**
 * The `market` command: subcommands are loaded only when they run, so `--help` or `market status`
 * start without DuckDB, Fastify or the charts.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
// A type only: the DuckDB binding takes a second to load, and most commands never open a file.
import type { DatabaseOpenError } from '../shared/database.js';
import { projectPath } from '../shared/project-root.js';
import { CliError } from './cli-error.js';
import { collectOptions, exportOptions, reportOptions, serveOptions, shared } from './options.js';
import { STATUS_LEGEND } from './status-legend.js';

// A reader that stops early (`market sql … | head`) ends the command quietly, not with EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

const { version } = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };

const program = new Command('market')
  .description('Marketplace API service with its simulator, and the market-data pipeline')
  .version(version)
  .showHelpAfterError();

withOptions(
  program
    .command('serve')
    .description('start the marketplace service (prints the base URL once it accepts connections)'),
  serveOptions(),
).action(async (flags) => (await import('./serve.js')).serve(flags));

const keys = program.command('keys').description('manage API keys in a service database no server holds');
keys
  .command('create')
  .description('create a key (and an account unless --account is given); prints the raw key alone')
  .addOption(shared.db())
  .option('--account <id>', 'add the key to this account')
  .option('--label <label>', 'label of the key', 'cli key')
  .option('--trading', 'enable trading on the key')
  .option('--ip-allowlist <cidrs>', 'comma-separated CIDRs the key accepts requests from')
  .option('--balance <usd>', 'opening balance of a new account', '0')
  .action(async (flags) => (await import('./keys.js')).createKey(flags));
keys
  .command('list')
  .description('list keys (never the raw keys)')
  .addOption(shared.db())
  .action(async (flags) => (await import('./keys.js')).listKeys(flags));
keys
  .command('revoke <keyId>')
  .description('revoke a key')
  .addOption(shared.db())
  .action(async (keyId, flags) => (await import('./keys.js')).revokeKey(keyId, flags));

const webhooks = program.command('webhooks').description('try webhooks against a running sandbox service');
webhooks
  .command('listen')
  .description(
    "register a local HTTPS receiver as an endpoint of the key's account, print each verified event (and forward it), remove it on exit",
  )
  .addOption(
    new Option('--base-url <url>', 'the API, ending in /v1')
      .env('MARKET_BASE_URL')
      .default('http://127.0.0.1:8080/v1'),
  )
  .addOption(
    new Option('--api-key <key>', 'a key of the account whose events to receive').env('MARKET_API_KEY'),
  )
  .option('--forward-to <url>', 'also POST each event (raw body and signature headers) to this URL')
  .addOption(
    new Option('--tls-dir <path>', "folder of the receiver's certificate, which the service trusts")
      .env('MARKET_WEBHOOK_TLS')
      .default('data/webhook-tls'),
  )
  .option('--port <port>', 'port of the local receiver; 0 picks a free one', '0')
  .action(async (flags) => (await import('./webhooks-listen.js')).listenWebhooks(flags));

withOptions(
  program
    .command('collect')
    .description('run the collector daemon against an API deployment until interrupted'),
  collectOptions(),
).action(async (flags) => (await import('./collect.js')).collect(flags));

program
  .command('status')
  .description('show what each source of the running collector is doing')
  .addOption(shared.warehouse())
  .option('--json', 'print JSON')
  .addHelpText('after', STATUS_LEGEND)
  .action(async (flags) => (await import('./status.js')).status(flags));

program
  .command('sql <query>')
  .description('run ad hoc SQL on the warehouse (through the running collector, or directly)')
  .addOption(shared.warehouse())
  .addOption(shared.warehouseMemory())
  .option('--format <format>', 'table, csv or json', 'table')
  .option('--out <file.parquet>', 'write the rows to this parquet file instead of printing them')
  .option('--query-timeout <seconds>', 'interrupt the query after this long (default 60, or the collector’s)')
  .action(async (query, flags) => (await import('./sql.js')).sql(query, flags));

const models = program
  .command('models')
  .description('the SQL models of sql/models (through the running collector, or directly)');
models
  .command('run')
  .description('build the models in dependency order (incremental ones from where they left off)')
  .addOption(shared.warehouse())
  .addOption(shared.warehouseMemory())
  .option('--select <models>', 'comma-separated models to build, with what they depend on')
  .option('--full-refresh', 'rebuild incremental models from scratch')
  .action(async (flags) => (await import('./models.js')).modelsRun(flags));
models
  .command('test')
  .description(
    'run the model tests (unique, not_null, accepted_values, relationships, ...); exit 1 on a failure',
  )
  .addOption(shared.warehouse())
  .addOption(shared.warehouseMemory())
  .option('--select <models>', 'comma-separated models whose tests to run')
  .action(async (flags) => (await import('./models.js')).modelsTest(flags));

withOptions(
  program
    .command('export')
    .description('export the SQL models to parquet, one file per model and day, with a manifest'),
  exportOptions(),
).action(async (flags) => (await import('./export.js')).runExport(flags));

withOptions(
  program
    .command('report')
    .description(
      'write a market report: one self-contained HTML file with charts of the SQL models, and each chart as SVG',
    ),
  reportOptions(),
).action(async (flags) => (await import('./report.js')).runReport(flags));

program
  .command('run')
  .description(
    'the main job on the embedded default: the sandbox service with its simulator, and the collector against it',
  )
  .addOption(shared.port())
  .addOption(shared.db())
  .addOption(shared.listings())
  .addOption(shared.warehouse())
  .addOption(shared.warehouseMemory())
  .addOption(shared.logFormat())
  .action(async (flags) => (await import('./run.js')).run(flags));

/** A {@link DatabaseOpenError}, known by its name so that this module does not load DuckDB. */
function isDatabaseOpenError(error: unknown): error is DatabaseOpenError {
  return error instanceof Error && error.name === 'DatabaseOpenError';
}

/** `command` with `options` added. */
function withOptions(command: Command, options: Option[]): Command {
  for (const option of options) command.addOption(option);
  return command;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`market: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  if (isDatabaseOpenError(error)) {
    // Most often another process holds the file: `npm start` already runs the service on it.
    process.stderr.write(
      `market: ${error.path} is in use or cannot be opened (${error.reason.split('. See')[0]}); ` +
        'if `npm start` or `market serve` runs on it, use that service, or give another --db / --warehouse\n',
    );
    process.exit(2);
  }
  process.stderr.write(`market: unexpected failure\n${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
