#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=2
/**
 * The `market` command: subcommands are loaded only when they run, so `--help` or `market status`
 * start without DuckDB, Fastify or the charts.
 *
 * The shebang (and `npm start`'s script) sets what a process reads only when it starts
 * (`test/bench/README.md`, "ingest" and "soak"):
 * - V8 semi-spaces of 2 MiB instead of Node 20's 16 (`v8.setFlagsFromString` later changes
 *   nothing): a daemon's young generation otherwise grows to 32 MiB in each burst of work and keeps
 *   it a while; a collector holds 146-151 MiB instead of 176-179 before its first write.
 * - glibc's malloc with two arenas and blocks of 128 KiB or more mapped on their own: by default
 *   each thread that runs DuckDB's queries gets an arena, and the threshold for a mapping of its own
 *   rises with every large block freed, so large blocks end up in the arenas, which keep them when
 *   freed: the main job's arenas held 140 MiB free after 10 minutes and kept growing.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
// A type only: the DuckDB binding takes a second to load, and most commands never open a file.
import type { DatabaseOpenError } from '../shared/database.js';
import { projectPath } from '../shared/project-root.js';
import { CliError } from './cli-error.js';
import { type FlagTable, optionsOf } from './flags.js';
import {
  collectFlags,
  exportFlags,
  keysCreateFlags,
  keysFlags,
  lakeMoveFlags,
  modelsRunFlags,
  modelsTestFlags,
  reportFlags,
  runFlags,
  serveFlags,
  sqlFlags,
  statusFlags,
  webhooksListenFlags,
} from './options.js';
import { STATUS_LEGEND } from './status-legend.js';

// A reader that stops early (`market sql … | head`) ends the command quietly, not with EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

// DuckDB's allocator (its own jemalloc) reads its settings from the environment when it first
// allocates, after this line: one arena and no per-thread caches instead of two arenas, since the
// few threads a command runs share one without waiting on it, and two kept the freed pages of both
// (peak RSS at 804,142 events 569-581 MiB against 628-634, no more CPU; test/bench/README.md,
// ingest). Settings given in the environment come after ours, so they win.
process.env.DUCKDB_JE_MALLOC_CONF = ['narenas:1,tcache:false', process.env.DUCKDB_JE_MALLOC_CONF]
  .filter(Boolean)
  .join(',');

const { version } = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };

const program = new Command('market')
  .description('Marketplace API service with its simulator, and the market-data pipeline')
  .version(version)
  .showHelpAfterError();

withOptions(
  program
    .command('serve')
    .description('start the marketplace service (prints the base URL once it accepts connections)'),
  serveFlags,
).action(async (flags) => (await import('./serve.js')).serve(flags));

const keys = program.command('keys').description('manage API keys in a service database no server holds');
withOptions(
  keys
    .command('create')
    .description('create a key (and an account unless --account is given); prints the raw key alone'),
  keysCreateFlags,
).action(async (flags) => (await import('./keys.js')).createKey(flags));
withOptions(keys.command('list').description('list keys (never the raw keys)'), keysFlags).action(
  async (flags) => (await import('./keys.js')).listKeys(flags),
);
withOptions(keys.command('revoke <keyId>').description('revoke a key'), keysFlags).action(
  async (keyId, flags) => (await import('./keys.js')).revokeKey(keyId, flags),
);

const webhooks = program.command('webhooks').description('try webhooks against a running sandbox service');
withOptions(
  webhooks
    .command('listen')
    .description(
      "register a local HTTPS receiver as an endpoint of the key's account, print each verified event (and forward it), remove it on exit",
    ),
  webhooksListenFlags,
).action(async (flags) => (await import('./webhooks-listen.js')).listenWebhooks(flags));

withOptions(
  program
    .command('collect')
    .description('run the collector daemon against an API deployment until interrupted'),
  collectFlags,
).action(async (flags) => (await import('./collect.js')).collect(flags));

withOptions(
  program.command('status').description('show what each source of the running collector is doing'),
  statusFlags,
)
  .addHelpText('after', STATUS_LEGEND)
  .action(async (flags) => (await import('./status.js')).status(flags));

withOptions(
  program
    .command('sql <query>')
    .description('run ad hoc SQL on the warehouse (through the running collector, or directly)'),
  sqlFlags,
).action(async (query, flags) => (await import('./sql.js')).sql(query, flags));

const models = program
  .command('models')
  .description(
    'the SQL models of sql/models, or of your own folder (--models); through the running collector, or directly',
  );
models
  .command('init <dir>')
  .description(
    'copy the shipped models into <dir> to change and add your own there; a folder already holding models is left as is',
  )
  .action(async (dir: string) => (await import('./models-init.js')).modelsInit(dir));
withOptions(
  models
    .command('run')
    .description('build the models in dependency order (incremental ones from where they left off)'),
  modelsRunFlags,
).action(async (flags) => (await import('./models.js')).modelsRun(flags));
withOptions(
  models
    .command('test')
    .description(
      'run the model tests (unique, not_null, accepted_values, relationships, ...); exit 1 on a failure',
    ),
  modelsTestFlags,
).action(async (flags) => (await import('./models.js')).modelsTest(flags));

const lake = program
  .command('lake')
  .description('the lake: old days of the warehouse as parquet beside it, read with the file');
withOptions(
  lake
    .command('move')
    .description(
      'move every row landed before --before out of the warehouse file into the lake (through the running collector, or directly)',
    ),
  lakeMoveFlags,
).action(async (flags) => (await import('./lake.js')).lakeMove(flags));

withOptions(
  program
    .command('export')
    .description('export the SQL models to parquet, one file per model and day, with a manifest'),
  exportFlags,
).action(async (flags) => (await import('./export.js')).runExport(flags));

withOptions(
  program
    .command('report')
    .description(
      'write a market report: one self-contained HTML file with charts of the SQL models, and each chart as SVG',
    ),
  reportFlags,
).action(async (flags) => (await import('./report.js')).runReport(flags));

withOptions(
  program
    .command('run')
    .description(
      'the main job on the embedded default: the sandbox service with its simulator, and the collector against it',
    ),
  runFlags,
).action(async (flags) => (await import('./run.js')).run(flags));

/** A {@link DatabaseOpenError}, known by its name so that this module does not load DuckDB. */
function isDatabaseOpenError(error: unknown): error is DatabaseOpenError {
  return error instanceof Error && error.name === 'DatabaseOpenError';
}

/** A failure to listen on a port another process holds. */
function isAddressInUse(error: unknown): error is Error {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/** `command` with the options of its flag table. */
function withOptions(command: Command, table: FlagTable): Command {
  for (const option of optionsOf(table)) command.addOption(option);
  return command;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`market: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  if (isAddressInUse(error)) {
    // A port another process listens on (a second `market run`, say): the message names it.
    process.stderr.write(`market: ${error.message}\n`);
    process.exit(2);
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
