/** Progress of `market export` on stderr: one line rewritten in place on a terminal, a line per model otherwise. */
import type { ExportProgress } from '../warehouse/index.js';
import { createLinePrinter, type ProgressPrinter } from './progress-line.js';

/** A printer of export progress for `stream` (see `createLinePrinter`). */
export function createProgressPrinter(stream: NodeJS.WriteStream): ProgressPrinter<ExportProgress> {
  return createLinePrinter(stream, {
    live: formatProgress,
    milestone: (p) =>
      p.daysDone === p.daysTotal ? `market export: ${p.model} ${p.daysTotal} days, ${p.rows} rows` : null,
  });
}

/** `exporting fct_x 2026-11-03 (3/12 days, 4567 rows)`. */
export function formatProgress(progress: ExportProgress): string {
  const { model, day, daysDone, daysTotal, rows } = progress;
  return `exporting ${model} ${day} (${daysDone}/${daysTotal} days, ${rows} rows)`;
}
