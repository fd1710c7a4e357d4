/**
 * `market export`: parquet exports of the SQL models. While a collector runs on the warehouse the
 * export runs inside it (DuckDB lets one process open the file); otherwise the file is opened
 * read-only here. One summary line per model on stdout, progress on stderr.
 */
import { resolve } from 'node:path';
import type { ExportRequest } from '../collector/control/protocol.js';
import type { ExportSummary, ModelExportSummary } from '../warehouse/index.js';
import { createProgressPrinter } from './export-progress.js';
import { parseFlags } from './flags.js';
import { openWarehouse } from './open-warehouse.js';
import { exportFlags } from './options.js';

/** Exports the models and prints what each got. */
export async function runExport(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(exportFlags, flags);
  const request: ExportRequest = {
    to: resolve(config.to),
    ...(config.models?.length ? { models: config.models } : {}),
    ...(config.since ? { since: config.since } : {}),
    ...(config.until ? { until: config.until } : {}),
  };
  const warehouse = await openWarehouse(config, config.modelsDir);
  const progress = createProgressPrinter(process.stderr);
  let summary: ExportSummary;
  try {
    summary = await warehouse.export(request, progress.update);
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
