/**
 * Validation of the flags commander parsed (flags over MARKET_* variables over the defaults of
 * options.ts), with zod, once per command; inner modules get plain typed options.
 */
import { z } from 'zod';
import { CliError } from './cli-error.js';
import { LOG_FORMATS, LOG_LEVELS } from './logger.js';

/** An integer in [min, max], given as text. */
export const int = (min: number, max: number) => {
  // One message for every way a value can miss: not a number, a fraction, out of range.
  const error = `must be an integer ${min}-${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** A comma-separated list, blanks dropped. */
export const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A switch: true, or 1/true/0/false as text. */
export const flag = z.union([
  z.boolean(),
  z.enum(['1', 'true', '0', 'false']).transform((v) => v === '1' || v === 'true'),
]);

/** A pino level. */
export const logLevel = z.enum(LOG_LEVELS);

/** How the daemon's logs are written: auto (text on a terminal, else JSON), json or text. */
export const logFormat = z.enum(LOG_FORMATS);

/** A DuckDB memory size such as `512MB` or `4GB` (DuckDB itself judges it). */
export const memorySize = z.string().min(1, 'give a size such as 1GB or 512MB');

/** The warehouse file and its memory limit, as every command that opens it takes them. */
export const warehouseFlags = { warehouse: z.string().min(1), warehouseMemory: memorySize };

/** Options of `market serve`. */
export const serveConfigSchema = z.object({
  host: z.string(),
  port: int(0, 65535),
  db: z.string().min(1),
  seed: int(0, 2 ** 31 - 1),
  listings: int(0, 5_000_000),
  sandbox: flag,
  trustProxy: list,
  corsOrigins: list,
  churnRate: z.coerce.number().min(0).max(10_000),
  churnPaused: flag,
  readLimit: int(1, 100_000_000),
  orderLimit: int(1, 100_000_000),
  logRetentionHours: z.coerce
    .number()
    .positive()
    .max(24 * 365),
  logMaxRows: int(1, 1_000_000_000),
  logLevel,
  webhookAllowLoopback: flag,
  webhookCa: z.string().min(1).optional(),
});
export type ServeConfig = z.infer<typeof serveConfigSchema>;

/** Validates a command's flags, or throws a CliError naming the bad option. */
export function parseConfig<T extends z.ZodObject>(schema: T, flags: Record<string, unknown>): z.infer<T> {
  const parsed = schema.safeParse(flags);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`invalid option ${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
