/** The flags of the `market` commands: flags over MARKET_* variables over defaults, shown in --help. */
import { Command, type Option } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig, serveConfigSchema } from '../../src/cli/config.js';
import { collectOptions, exportOptions, serveOptions, shared } from '../../src/cli/options.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** The options a command made of `options` parses from `args` and the environment. */
function parse(options: Option[], args: string[], env: Record<string, string> = {}) {
  for (const name of Object.keys(process.env)) if (name.startsWith('MARKET_')) delete process.env[name];
  Object.assign(process.env, env);
  const command = new Command('test').exitOverride();
  for (const option of options) command.addOption(option);
  command.parse(args, { from: 'user' });
  return command.opts();
}

describe('market serve options', () => {
  it('gives the documented defaults when neither a flag nor a variable is set', () => {
    expect(parseConfig(serveConfigSchema, parse(serveOptions(), []))).toEqual({
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
    const fromEnv = parseConfig(serveConfigSchema, parse(serveOptions(), [], env));
    expect(fromEnv).toMatchObject({ port: 9000, logLevel: 'error', trustProxy: ['10.0.0.0/8', '::1'] });
    const fromFlag = parseConfig(serveConfigSchema, parse(serveOptions(), ['--port', '0'], env));
    expect(fromFlag.port).toBe(0);
  });

  it.each([
    [[], { MARKET_SANDBOX: '1' }, true],
    [[], { MARKET_SANDBOX: '0' }, false],
    [['--sandbox'], {}, true],
    [['--sandbox', 'false'], { MARKET_SANDBOX: '1' }, false],
  ])('reads the sandbox switch from %j and %j as %s', (args, env, on) => {
    expect(parseConfig(serveConfigSchema, parse(serveOptions(), args, env)).sandbox).toBe(on);
  });

  it('names the option a bad value was given to', () => {
    expect(() => parseConfig(serveConfigSchema, parse(serveOptions(), ['--port', '70000']))).toThrow(
      /^invalid option port: /,
    );
  });
});

describe('warehouse options', () => {
  it.each([
    ['collect', collectOptions()],
    ['export', exportOptions()],
    ['the shared ones', [shared.warehouse(), shared.warehouseMemory()]],
  ])('of %s read MARKET_WAREHOUSE_MEMORY, 1GB by default', (_, options) => {
    expect(parse(options, [])).toMatchObject({ warehouse: 'data/warehouse.duckdb', warehouseMemory: '1GB' });
    const copies = () => options.map((o) => o);
    expect(
      parse(copies(), [], { MARKET_WAREHOUSE_MEMORY: '4GB', MARKET_WAREHOUSE: '/w.duckdb' }),
    ).toMatchObject({
      warehouse: '/w.duckdb',
      warehouseMemory: '4GB',
    });
  });

  it('shows every default and variable in --help', () => {
    const command = new Command('collect');
    for (const option of collectOptions()) command.addOption(option);
    const help = command.helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('(default: "1GB", env: MARKET_WAREHOUSE_MEMORY)');
    expect(help).toContain('(default: "30")');
    expect(help).toContain('(default: "info", env: MARKET_LOG_LEVEL)');
  });
});
