/** Cron ticks for jobs, through node-cron (UTC), behind a small interface tests can replace. */
import cron, { type Logger } from 'node-cron';

/** A running cron schedule. */
export interface CronSchedule {
  stop(): void | Promise<void>;
}

/**
 * Calls `tick` on every occurrence of `expression`; throws when it is not a cron expression.
 * A tick that comes while the previous one's promise is pending is skipped.
 */
export type CronScheduler = (expression: string, tick: () => Promise<void>) => CronSchedule;

/** True when node-cron accepts `expression` (five fields, or six with seconds first). */
export function isCronExpression(expression: string): boolean {
  return cron.validate(expression);
}

/**
 * node-cron's own lines, dropped: it warns on stderr at every tick skipped behind a slow run and
 * at every tick a busy process missed, which is what `noOverlap` is for (on a loaded machine, a
 * model refresh past its minute printed one line a minute into the daemon's JSON log). A tick
 * never rejects (a job catches its own failures), so nothing worth saying goes through here.
 */
const quiet: Logger = { info() {}, warn() {}, error() {}, debug() {} };

/** The node-cron scheduler, evaluated in UTC, with `noOverlap` so that a slow run skips ticks. */
export const nodeCronScheduler: CronScheduler = (expression, tick) => {
  if (!isCronExpression(expression))
    throw new Error(`"${expression}" is not a cron expression, e.g. "*/5 * * * *" (every five minutes)`);
  return cron.schedule(expression, () => tick(), { timezone: 'UTC', noOverlap: true, logger: quiet });
};
