/**
 * Scheduled parquet exports inside the daemon: on a cron schedule (UTC), the days since yesterday
 * are exported again, one run at a time. A failed run is reported, never fatal: the next one retries.
 */
import { exportModels, type Warehouse } from '../warehouse/index.js';
import { type CronJob, scheduleCronJob } from './cron-job.js';

/** Options of {@link scheduleExports}. */
export interface ExportScheduleOptions {
  /**
   * Cron expression, evaluated in UTC.
   * @example '0 * * * *' (at the top of every hour)
   */
  cron: string;
  /** The export folder. @default 'data/exports' */
  dir?: string;
  /** Called with the error of a failed run (which is also on the board). */
  onError?: (error: unknown) => void;
}

/** Running scheduled exports: status named `export`, `landed` counts rows exported. */
export type ExportSchedule = CronJob;

const DAY_MS = 86_400_000;

/** Starts exporting `warehouse` on `options.cron`; a tick that comes while a run is going on is skipped. */
export function scheduleExports(warehouse: Warehouse, options: ExportScheduleOptions): ExportSchedule {
  return scheduleCronJob({
    name: 'export',
    cron: options.cron,
    async run() {
      // Yesterday too: rows of a day keep arriving after midnight, until that day's last refresh.
      const since = new Date(warehouse.clock() - DAY_MS).toISOString().slice(0, 10);
      const summary = await exportModels(warehouse, { to: options.dir ?? 'data/exports', since });
      return summary.models.reduce((sum, m) => sum + m.rows, 0);
    },
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
