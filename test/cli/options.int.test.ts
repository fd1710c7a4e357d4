/** The flags of the `market` commands: flags over MARKET_* variables over defaults, shown in --help. */
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { type FlagTable, optionsOf, parseFlags } from '../../src/cli/flags.js';
import {
  collectFlags,
  exportFlags,
  reportFlags,
  runFlags,
  serveFlags,
  sqlFlags,
} from '../../src/cli/options.js';
import { COLLECTOR_DEFAULTS } from '../../src/collector/collector-options.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** What commander reads for a command made of `table`, from `args` and the environment. */
function parse(table: FlagTable, args: string[], env: Record<string, string> = {}) {
  for (const name of Object.keys(process.env)) if (name.startsWith('MARKET_')) delete process.env[name];
  Object.assign(process.env, env);
  const command = new Command('test').exitOverride();
  for (const option of optionsOf(table)) command.addOption(option);
  command.parse(args, { from: 'user' });
  return command.opts();
}

describe('market serve options', () => {
  it('gives the documented defaults when neither a flag nor a variable is set', () => {
    expect(parseFlags(serveFlags, parse(serveFlags, []))).toEqual({
      host: '127.0.0.1',
      port: 8080,
      db: 'data/market.duckdb',
      seed: 1,
      listings: 20_000,
      sandbox: false,
      trustProxy: [],
      corsOrigins: [],
      churnRate: 4,
      churnPaused: false,
      readLimit: 100,
      orderLimit: 250,
      logRetentionHours: 24,
      logMaxRows: 2_000_000,
      logLevel: 'warn',
      webhookAllowLoopback: false,
    });
  });

  it('takes a variable over the default and a flag over the variable', () => {
    const env = { MARKET_PORT: '9000', MARKET_LOG_LEVEL: 'error', MARKET_TRUST_PROXY: '10.0.0.0/8, ::1' };
    const fromEnv = parseFlags(serveFlags, parse(serveFlags, [], env));
    expect(fromEnv).toMatchObject({ port: 9000, logLevel: 'error', trustProxy: ['10.0.0.0/8', '::1'] });
    const fromFlag = parseFlags(serveFlags, parse(serveFlags, ['--port', '0'], env));
    expect(fromFlag.port).toBe(0);
  });

  it.each([
    [[], { MARKET_SANDBOX: '1' }, true],
    [[], { MARKET_SANDBOX: '0' }, false],
    [['--sandbox'], {}, true],
    [['--sandbox', 'false'], { MARKET_SANDBOX: '1' }, false],
  ])('reads the sandbox switch from %j and %j as %s', (args, env, on) => {
    expect(parseFlags(serveFlags, parse(serveFlags, args, env)).sandbox).toBe(on);
  });

  it('names the option a bad value was given to', () => {
    expect(() => parseFlags(serveFlags, parse(serveFlags, ['--port', '70000']))).toThrow(
      /^invalid option port: /,
    );
  });
});

describe('warehouse options', () => {
  it.each([
    ['collect', '512MB', collectFlags],
    ['run', '512MB', runFlags],
    ['export', '1GB', exportFlags],
    ['report', '1GB', reportFlags],
    ['sql', '1GB', sqlFlags],
  ] as [string, string, FlagTable][])(
    'of %s read MARKET_WAREHOUSE_MEMORY, %s by default',
    (_, memory, table) => {
      expect(parse(table, [])).toMatchObject({ warehouse: 'data/warehouse.duckdb', warehouseMemory: memory });
      expect(
        parse(table, [], { MARKET_WAREHOUSE_MEMORY: '4GB', MARKET_WAREHOUSE: '/w.duckdb' }),
      ).toMatchObject({
        warehouse: '/w.duckdb',
        warehouseMemory: '4GB',
      });
    },
  );

  it('shows every default and variable in --help', () => {
    const command = new Command('collect');
    for (const option of optionsOf(collectFlags)) command.addOption(option);
    const help = command.helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('(default: "512MB", env: MARKET_WAREHOUSE_MEMORY)');
    expect(help).toContain('(default: "30")');
    expect(help).toContain('(default: "info", env: MARKET_LOG_LEVEL)');
    expect(help).toContain('--control-port <port>');
    expect(help).toContain('(default: "0", env: MARKET_CONTROL_PORT)');
    expect(help).toContain('--metrics-token-file <path>');
    expect(help).toContain('(env: MARKET_METRICS_TOKEN_FILE)');
  });
});

describe('control endpoint options', () => {
  it.each([
    ['collect', collectFlags, ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'svc_pub_x']],
    ['run', runFlags, []],
  ] as [string, FlagTable, string[]][])(
    'of %s: a free port and no token file by default, else the flag over the variable',
    (_, table, required) => {
      const defaults = parseFlags(table, parse(table, required));
      expect(defaults).toMatchObject({ controlPort: COLLECTOR_DEFAULTS.control.port });
      expect(defaults.metricsTokenFile).toBeUndefined();
      const env = { MARKET_CONTROL_PORT: '9464', MARKET_METRICS_TOKEN_FILE: '/run/market/token' };
      expect(parseFlags(table, parse(table, required, env))).toMatchObject({
        controlPort: 9464,
        metricsTokenFile: '/run/market/token',
      });
      expect(parseFlags(table, parse(table, [...required, '--control-port', '9465'], env))).toMatchObject({
        controlPort: 9465,
      });
      expect(() => parseFlags(table, parse(table, [...required, '--control-port', '65536']))).toThrow(
        /^invalid option controlPort: /,
      );
    },
  );
});

describe('market collect options', () => {
  const required = ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'svc_pub_x'];

  it("defaults to the collector's own defaults, in the collector's units", () => {
    const config = parseFlags(collectFlags, parse(collectFlags, required));
    const { sources, work, api } = COLLECTOR_DEFAULTS;
    expect(config).toMatchObject({ ...sources, readBudget: api.readBudget, ...work, statusSeconds: 300 });
    expect(config.pollIntervalMs).toBe(30_000);
    expect(config.exportCron).toBeUndefined();
    // The history moves on by itself: the file keeps the hot days, the lake the rest.
    expect(config.lakeCron).toBe('0 3 * * *');
  });

  it.each([
    [['--poll-seconds', '1.5'], { pollIntervalMs: 1500 }],
    [['--query-timeout', '0.25'], { queryTimeoutMs: 250 }],
    [['--models-cron', 'off'], { modelsCron: null }],
    [['--lake-cron', 'off'], { lakeCron: null }],
    [['--lake-cron', '30 1 * * *'], { lakeCron: '30 1 * * *' }],
    [['--no-account'], { account: false }],
    [['--games', '570, 252490'], { games: [570, 252490] }],
    [[], { historyRate: 120 }],
    [['--history-rate', '30'], { historyRate: 30 }],
  ])('reads %j as %j', (args, expected) => {
    expect(parseFlags(collectFlags, parse(collectFlags, [...required, ...args]))).toMatchObject(expected);
  });

  it.each([
    [['--poll-seconds', '0'], /^invalid option pollSeconds: /],
    [['--history-rate', '0'], /^invalid option historyRate: /],
    [
      ['--export-cron', 'hourly'],
      /^invalid option exportCron: give a cron expression, e\.g\. "0 \* \* \* \*" \(hourly\)$/,
    ],
    [
      ['--models-cron', 'never'],
      /^invalid option modelsCron: give a cron expression, e\.g\. "\* \* \* \* \*", or off$/,
    ],
  ])('names the flag of a bad value in %j', (args, message) => {
    expect(() => parseFlags(collectFlags, parse(collectFlags, [...required, ...args]))).toThrow(message);
  });
});

describe('market run options', () => {
  const longNames = (table: FlagTable) => optionsOf(table).map((option) => option.long);

  it("takes every flag of market collect but the API's (the service it starts)", () => {
    const collectorOnly = longNames(collectFlags).filter(
      (name) => !['--base-url', '--api-key'].includes(name ?? ''),
    );
    expect(collectorOnly).toContain('--freshness');
    expect(longNames(runFlags)).toEqual(expect.arrayContaining(collectorOnly));
    expect(longNames(runFlags)).not.toContain('--base-url');
  });

  it('exports and reports hourly, beside the warehouse, unless told otherwise', () => {
    expect(parseFlags(runFlags, parse(runFlags, []))).toMatchObject({
      exportCron: '0 * * * *',
      reportCron: '0 * * * *',
      exportDir: undefined,
      freshness: {},
    });
    const told = parse(runFlags, ['--export-cron', 'off', '--freshness', 'stream=7/11', '--export-dir', 'x']);
    expect(parseFlags(runFlags, told)).toMatchObject({
      exportCron: null,
      exportDir: 'x',
      freshness: { stream: { warnSeconds: 7, errorSeconds: 11 } },
    });
  });
});
