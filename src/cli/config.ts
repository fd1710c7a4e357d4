/** The zod types of flag values, as the flag tables of options.ts use them. */
import { z } from 'zod';
import { isCronExpression } from '../shared/jobs/cron-scheduler.js';

/** pino levels, and `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** `auto`: text when stderr is a terminal, else JSON. */
export const LOG_FORMATS = ['auto', 'json', 'text'] as const;

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
export const onOff = z.union([
  z.boolean(),
  z.enum(['1', 'true', '0', 'false']).transform((v) => v === '1' || v === 'true'),
]);

/** A number of seconds above 0, as milliseconds. */
export const secondsAsMs = z.coerce
  .number()
  .positive()
  .transform((s) => Math.round(s * 1000));

/** A cron expression (UTC); `example` is what the message shows, e.g. `"0 * * * *" (hourly)`. */
export const cron = (example: string) =>
  z.string().refine(isCronExpression, `give a cron expression, e.g. ${example}`);

/** A cron expression (UTC), or `off` (null) for none. */
export const cronOrOff = (example: string) =>
  z
    .string()
    .refine((v) => v === 'off' || isCronExpression(v), `give a cron expression, e.g. ${example}, or off`)
    .transform((v) => (v === 'off' ? null : v));

/** A pino level. */
export const logLevel = z.enum(LOG_LEVELS);

/** How the daemon's logs are written: auto (text on a terminal, else JSON), json or text. */
export const logFormat = z.enum(LOG_FORMATS);

/** A DuckDB memory size such as `512MB` or `4GB` (DuckDB itself judges it). */
export const memorySize = z.string().min(1, 'give a size such as 1GB or 512MB');
