/**
 * One table per command: each flag written once, with its help, `MARKET_*` variable, default and
 * zod type. The table makes the command's commander options (flags over variables over defaults,
 * all shown in `--help`) and parses what commander read into the command's typed config.
 */
import { Option } from 'commander';
import { z } from 'zod';
import { CliError } from './cli-error.js';

/** One flag of a command. */
export interface Flag<T extends z.ZodType = z.ZodType> {
  /** As commander writes it, e.g. `--port <port>`, `--churn-paused` or `--no-account`. */
  flags: string;
  /** The line of `--help`. */
  help: string;
  /** The variable read when the flag is not given. */
  env?: string;
  /** The value when neither is given, written as on the command line (shown in `--help`). */
  fallback?: string | boolean;
  /** Parses what commander read (text, or true/false for a switch) into the config's value. */
  type: T;
}

/** The flags of one command, keyed by the name of their value in the command's config. */
export type FlagTable = Record<string, Flag>;

/** The typed config a table parses to. */
export type ConfigOf<T extends FlagTable> = { [K in keyof T]: z.output<T[K]['type']> };

/**
 * A row of a table.
 * @example flag('--port <port>', 'port of the service', int(0, 65535), { env: 'MARKET_PORT', fallback: '8080' })
 */
export function flag<T extends z.ZodType>(
  flags: string,
  help: string,
  type: T,
  from: { env?: string; fallback?: string | boolean } = {},
): Flag<T> {
  return { flags, help, type, ...from };
}

/** The commander options of a table, in its order (a new set each call: commander keeps state in them). */
export function optionsOf(table: FlagTable): Option[] {
  return Object.values(table).map((row) => {
    const option = new Option(row.flags, row.help);
    if (row.env) option.env(row.env);
    if (row.fallback !== undefined) option.default(row.fallback);
    return option;
  });
}

/**
 * The config of a table from what commander read, or a CliError naming the option a bad value was
 * given to (by commander's name for it, e.g. `exportCron`).
 */
export function parseFlags<T extends FlagTable>(table: T, read: Record<string, unknown>): ConfigOf<T> {
  const shape: Record<string, z.ZodType> = {};
  const input: Record<string, unknown> = {};
  for (const [key, row] of Object.entries(table)) {
    shape[key] = row.type;
    input[key] = read[attributeOf(row)];
  }
  const parsed = z.object(shape).safeParse(input);
  if (parsed.success) return parsed.data as ConfigOf<T>;
  const issue = parsed.error.issues[0];
  const row = table[String(issue?.path[0] ?? '')];
  throw new CliError(`invalid option ${row ? attributeOf(row) : ''}: ${issue?.message ?? 'invalid'}`);
}

/** The name commander gives a flag's value, e.g. `pollSeconds` for `--poll-seconds <n>`. */
function attributeOf(row: Flag): string {
  return new Option(row.flags).attributeName();
}
