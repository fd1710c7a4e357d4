/**
 * `market report`: a market report of the warehouse's SQL models, one self-contained HTML file
 * with its charts also as SVG files, and `latest.html`. While a collector runs on the warehouse the
 * report is built inside it (DuckDB lets one process open the file); otherwise the file is opened
 * read-only here. The report's path on stdout, progress on stderr.
 */
import { resolve } from 'node:path';
import type { ReportRequest } from '../collector/control/protocol.js';
import type { ReportProgress, ReportSummary } from '../warehouse/index.js';
import { parseFlags } from './flags.js';
import { openWarehouse } from './open-warehouse.js';
import { reportFlags } from './options.js';
import { createLinePrinter } from './progress-line.js';

/** Builds a report and prints where it went and which charts had nothing to show. */
export async function runReport(flags: Record<string, unknown>): Promise<void> {
  const config = parseFlags(reportFlags, flags);
  const request: ReportRequest = { out: resolve(config.out), window: config.window, items: config.items };
  const progress = createLinePrinter<ReportProgress>(process.stderr, {
    live: (p) => `building the report: ${p.step} (${p.done}/${p.total})`,
    milestone: () => null,
  });
  const warehouse = await openWarehouse(config);
  let summary: ReportSummary;
  try {
    summary = await warehouse.report(request, progress.update);
  } finally {
    progress.end();
  }
  for (const { chart, reason } of summary.missing)
    process.stderr.write(`market report: no ${chart} chart: ${reason}\n`);
  process.stdout.write(`${summary.html}\n`);
}
