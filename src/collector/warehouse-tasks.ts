/**
 * Warehouse work the daemon runs on cron schedules (UTC): the model refresh, parquet exports of
 * the days since yesterday, and market reports. A failed run is reported, never fatal: the next
 * one retries.
 */
import { buildReport, exportModels, type Warehouse } from '../warehouse/index.js';
import type { SourceTask } from './source-job.js';
import { StatusBoard } from './source-status.js';

const DAY_MS = 86_400_000;

/** The export task: status named `export`, `landed` counts rows exported into `dir`. */
export function createExportTask(warehouse: Warehouse, dir: string): SourceTask {
  return {
    board: new StatusBoard('export'),
    async run() {
      // Yesterday too: rows of a day keep arriving after midnight, until that day's last refresh.
      const since = new Date(warehouse.clock() - DAY_MS).toISOString().slice(0, 10);
      const summary = await exportModels(warehouse, { to: dir, since });
      return summary.models.reduce((sum, m) => sum + m.rows, 0);
    },
  };
}

/** The model refresh task: status named `models`, `landed` counts rows of the models built. */
export function createModelsTask(warehouse: Warehouse): SourceTask {
  return {
    board: new StatusBoard('models'),
    async run(signal) {
      // A stop interrupts a build in progress: it rolls back, and the next start builds again.
      const summary = await warehouse.refreshModels({ signal });
      return summary.models.reduce((sum, m) => sum + (m.rows ?? 0), 0);
    },
  };
}

/** The report task: status named `report`, `landed` counts the charts drawn into `dir`. */
export function createReportTask(warehouse: Warehouse, dir: string): SourceTask {
  return {
    board: new StatusBoard('report'),
    async run() {
      const summary = await buildReport(warehouse, { out: dir });
      return summary.svgs.length;
    },
  };
}
