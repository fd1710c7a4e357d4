/**
 * `market report`: a market report of the warehouse's SQL models, one self-contained HTML file
 * with its charts also as SVG files, and `latest.html`. While a collector runs on the warehouse the
 * report is built inside it (DuckDB lets one process open the file); otherwise the file is opened
 * read-only here. The report's path on stdout, progress on stderr.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { ReportRequest } from '../collector/control-report.js';
import { buildReport, isWindow, type ReportProgress, type ReportSummary } from '../warehouse/index.js';
import { int, parseConfig, warehouseFlags } from './config.js';
import { ControlClient } from './control-client.js';
import { createLinePrinter } from './progress-line.js';
import { withWarehouse } from './with-warehouse.js';

const reportConfigSchema = z.object({
  ...warehouseFlags,
  window: z.string().refine(isWindow, 'give minutes, hours or days, e.g. 7d, 24h or 90m'),
  items: int(1, 50),
  out: z.string().min(1),
});

/** Builds a report and prints where it went and which charts had nothing to show. */
export async function runReport(flags: Record<string, unknown>): Promise<void> {
  const config = parseConfig(reportConfigSchema, flags);
  const request: ReportRequest = { out: resolve(config.out), window: config.window, items: config.items };
  const progress = createLinePrinter<ReportProgress>(process.stderr, {
    live: (p) => `building the report: ${p.step} (${p.done}/${p.total})`,
    milestone: () => null,
  });
  const control = await ControlClient.find(config.warehouse);
  let summary: ReportSummary;
  try {
    summary = control
      ? await control.report(request, progress.update)
      : await withWarehouse(config, { readOnly: true }, (warehouse) =>
          buildReport(warehouse, {
            out: request.out,
            window: config.window,
            items: config.items,
            onProgress: progress.update,
          }),
        );
  } finally {
    progress.end();
  }
  for (const { chart, reason } of summary.missing)
    process.stderr.write(`market report: no ${chart} chart: ${reason}\n`);
  process.stdout.write(`${summary.html}\n`);
}
