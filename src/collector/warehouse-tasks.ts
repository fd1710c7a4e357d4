/**
 * Warehouse work the daemon runs on cron schedules (UTC): the model refresh, parquet exports of
 * the days since yesterday, and market reports. A failed run is reported, never fatal: the next
 * one retries.
 */

import { untilAborted } from '../client/abortable.js';
import { onExport } from '../warehouse/export/index.js';
import { type BatchWriter, buildReport, exportModels, type Warehouse } from '../warehouse/index.js';
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
 * Longest a refresh waits for a burst to land: a backfill of hours still refreshes the models this
 * often.
 */
const MAX_BURST_WAIT_MS = 10 * 60_000;

/**
 * The model refresh task: status named `models`, `landed` counts rows of the models built;
 * `onDone` hears how long each refresh took. With `landing` (the daemon's batch writer), a refresh
 * due while a burst lands waits until it has landed (at most {@link MAX_BURST_WAIT_MS}): beside a
 * burst, a build's open transaction kept every row landed meanwhile in memory, and took the CPU the
 * burst lands with (`test/bench/README.md`, ingest).
 */
export function createModelsTask(
  warehouse: Warehouse,
  onDone?: (durationMs: number) => void,
  landing?: Pick<BatchWriter, 'calm'>,
): SourceTask {
  return {
    board: new StatusBoard('models'),
    async run(signal) {
      if (landing) await untilAborted(calmOrLater(landing, MAX_BURST_WAIT_MS), signal);
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

/** Resolves once `landing` is calm, or after `ms` whatever it is doing. */
async function calmOrLater(landing: Pick<BatchWriter, 'calm'>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const later = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([landing.calm(), later]);
  clearTimeout(timer);
}
