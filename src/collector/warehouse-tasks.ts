/**
 * Warehouse work the daemon runs on cron schedules (UTC): the model refresh, parquet exports of
 * the days since yesterday, and market reports. A failed run is reported, never fatal: the next
 * one retries.
 */
import { onExport } from '../warehouse/export/index.js';
import { buildReport, exportModels, type Warehouse } from '../warehouse/index.js';
import { onReport } from '../warehouse/report/index.js';
import type { SourceTask } from './source-job.js';
import { StatusBoard } from './source-status.js';

const DAY_MS = 86_400_000;

/**
 * The boards of the exports and reports of `warehouse`: `export` counts the rows and `report` the
 * charts of every one this process makes, scheduled or asked for through the control endpoint.
 */
export function watchWarehouseWork(
  warehouse: Warehouse,
  onDone?: (kind: 'export' | 'report', durationMs: number) => void,
): { exports: StatusBoard; reports: StatusBoard } {
  const exports = new StatusBoard('export');
  const reports = new StatusBoard('report');
  exports.status.connected = true;
  reports.status.connected = true;
  onExport(warehouse, (summary) => {
    exports.status.landed += summary.models.reduce((sum, m) => sum + m.rows, 0);
    onDone?.('export', summary.durationMs);
  });
  onReport(warehouse, (summary) => {
    reports.status.landed += summary.svgs.length;
    onDone?.('report', summary.durationMs);
  });
  return { exports, reports };
}

/** The scheduled export task on `board` (see {@link watchWarehouseWork}, which counts its rows). */
export function createExportTask(warehouse: Warehouse, dir: string, board: StatusBoard): SourceTask {
  return {
    board,
    async run() {
      // Yesterday too: rows of a day keep arriving after midnight, until that day's last refresh.
      const since = new Date(warehouse.clock() - DAY_MS).toISOString().slice(0, 10);
      await exportModels(warehouse, { to: dir, since });
      return 0;
    },
  };
}

/**
 * The model refresh task: status named `models`, `landed` counts rows of the models built;
 * `onDone` hears how long each refresh took.
 */
export function createModelsTask(warehouse: Warehouse, onDone?: (durationMs: number) => void): SourceTask {
  return {
    board: new StatusBoard('models'),
    async run(signal) {
      // A stop interrupts a build in progress: it rolls back, and the next start builds again.
      const summary = await warehouse.refreshModels({ signal });
      onDone?.(summary.durationMs);
      return summary.models.reduce((sum, m) => sum + (m.rows ?? 0), 0);
    },
  };
}

/**
 * The scheduled lake move: every row landed before the start of the UTC day `hotDays` days before
 * today moves to the lake (see `Warehouse.moveToLake`); `landed` counts the rows moved.
 */
export function createLakeTask(warehouse: Warehouse, hotDays: number): SourceTask {
  return {
    board: new StatusBoard('lake'),
    async run() {
      const today = warehouse.clock() - (warehouse.clock() % DAY_MS);
      const summary = await warehouse.moveToLake(today - hotDays * DAY_MS);
      return Object.values(summary.relations).reduce((sum, r) => sum + r.rows, 0);
    },
  };
}

/** The scheduled report task on `board` (see {@link watchWarehouseWork}, which counts its charts). */
export function createReportTask(warehouse: Warehouse, dir: string, board: StatusBoard): SourceTask {
  return {
    board,
    async run() {
      await buildReport(warehouse, { out: dir });
      return 0;
    },
  };
}
