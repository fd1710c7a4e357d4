/** Flags over MARKET_* environment variables over defaults, parsed once with zod. */
import { z } from 'zod';
import { CliError } from './cli-error.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const flag = z.union([
  z.boolean(),
  z.enum(['1', 'true', '0', 'false']).transform((v) => v === '1' || v === 'true'),
]);

/** Options of `market serve`. */
export const serveConfigSchema = z.object({
  host: z.string().default('127.0.0.1'),
  port: int(0, 65535).default(8080),
  db: z.string().default('data/market.duckdb'),
  seed: int(0, 2 ** 31 - 1).default(1),
  listings: int(0, 5_000_000).default(20_000),
  sandbox: flag.default(false),
  trustProxy: list.default([]),
  churnRate: z.coerce.number().min(0).max(10_000).default(4),
  churnPaused: flag.default(false),
  readLimit: int(1, 100_000_000).default(100),
  logRetentionHours: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  logMaxRows: int(1, 1_000_000_000).default(2_000_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});
export type ServeConfig = z.infer<typeof serveConfigSchema>;

/** Environment variables that stand in for flags, by option name. */
const ENV: Record<string, string> = {
  host: 'MARKET_HOST',
  port: 'MARKET_PORT',
  db: 'MARKET_DB',
  seed: 'MARKET_SEED',
  listings: 'MARKET_LISTINGS',
  sandbox: 'MARKET_SANDBOX',
  trustProxy: 'MARKET_TRUST_PROXY',
  churnRate: 'MARKET_CHURN_RATE',
  readLimit: 'MARKET_READ_LIMIT',
  logRetentionHours: 'MARKET_LOG_RETENTION_HOURS',
  logMaxRows: 'MARKET_LOG_MAX_ROWS',
  logLevel: 'MARKET_LOG_LEVEL',
  baseUrl: 'MARKET_BASE_URL',
  apiKey: 'MARKET_API_KEY',
  warehouse: 'MARKET_WAREHOUSE',
  games: 'MARKET_GAMES',
};

/** Merges flags over the environment and validates, or throws a CliError naming the bad option. */
export function parseConfig<T extends z.ZodObject>(
  schema: T,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): z.infer<T> {
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const envName = ENV[key];
    const value = flags[key] ?? (envName ? env[envName] : undefined);
    if (value !== undefined) merged[key] = value;
  }
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`invalid option ${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
