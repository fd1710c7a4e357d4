/**
 * `market export`: parquet exports of the SQL models. While a collector runs on the warehouse the
 * export runs inside it (DuckDB lets one process open the file); otherwise the file is opened
 * read-only here. One summary line per model on stdout, progress on stderr.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { type ExportRequest, exportOptionsOf } from '../collector/control-export.js';
import {
  type ExportProgress,
  type ExportSummary,
  exportModels,
  isDay,
  isExportInputError,
  type ModelExportSummary,
} from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import { list, parseConfig, warehouseFlags } from './config.js';
import { ControlClient } from './control-client.js';
import { createProgressPrinter } from './export-progress.js';
import { type WarehouseFlags, withWarehouse } from './with-warehouse.js';

const day = z.string().refine(isDay, 'give a day written YYYY-MM-DD, e.g. 2026-11-01');

const exportConfigSchema = z.object({
  ...warehouseFlags,
  to: z.string().min(1),
  models: list.optional(),
  since: day.optional(),
  until: day.optional(),
  modelsDir: z.string().optional(),
});

/** Exports the models and prints what each got. */
export async function runExport(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(exportConfigSchema, flags);
  const request: ExportRequest = {
    to: resolve(config.to),
    ...(config.models?.length ? { models: config.models } : {}),
    ...(config.since ? { since: config.since } : {}),
    ...(config.until ? { until: config.until } : {}),
  };
  const progress = createProgressPrinter(process.stderr);
  const control = await ControlClient.find(config.warehouse);
  if (control && config.modelsDir)
    throw new CliError(
      `a collector is running on ${config.warehouse} and exports the models of its own folder; --models-dir applies only when none runs`,
    );
  let summary: ExportSummary;
  try {
    summary = control
      ? await control.export(request, progress.update)
      : await exportDirectly(config, config.modelsDir, request, progress.update);
  } finally {
    progress.end();
  }
  for (const model of summary.models) process.stdout.write(`${formatSummary(model)}\n`);
}

/** `fct_x: 12 files, 34567 rows`, with removed days and dateless rows when there are any. */
export function formatSummary(model: ModelExportSummary): string {
  const extras = [
    model.removedDays > 0 ? `${model.removedDays} emptied day folders removed` : '',
    model.rowsWithoutDate > 0 ? `${model.rowsWithoutDate} rows without a date not exported` : '',
  ].filter(Boolean);
  return [`${model.model}: ${model.files} files, ${model.rows} rows`, ...extras].join(', ');
}

/** Opens the warehouse read-only in this process and exports. */
function exportDirectly(
  flags: WarehouseFlags,
  modelsDir: string | undefined,
  request: ExportRequest,
  onProgress: (progress: ExportProgress) => void,
): Promise<ExportSummary> {
  return withWarehouse(
    flags,
    { readOnly: true, ...(modelsDir ? { modelsDir } : {}) },
    (warehouse) => exportModels(warehouse, exportOptionsOf(request, onProgress)),
    (error) => (isExportInputError(error) ? 2 : 1),
  );
}
