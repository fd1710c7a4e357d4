/** Progress of `market export` on stderr: one line rewritten in place on a terminal, a line per model otherwise. */
import type { ExportProgress } from '../warehouse/index.js';

/** Prints progress to a stream. */
export interface ProgressPrinter {
  update(progress: ExportProgress): void;
  /** Clears the line being rewritten, if any. */
  end(): void;
}

/** A printer for `stream`: a single updating line (`\r`) when it is a TTY, plain lines otherwise. */
export function createProgressPrinter(stream: NodeJS.WriteStream): ProgressPrinter {
  if (stream.isTTY) {
    let shown = false;
    return {
      update(progress) {
        shown = true;
        stream.write(`\r${formatProgress(progress)}\x1b[K`);
      },
      end() {
        if (shown) stream.write('\r\x1b[K');
      },
    };
  }
  return {
    update(progress) {
      if (progress.daysDone === progress.daysTotal)
        stream.write(`market export: ${progress.model} ${progress.daysTotal} days, ${progress.rows} rows\n`);
    },
    end() {},
  };
}

/** `exporting fct_x 2026-11-03 (3/12 days, 4567 rows)`. */
export function formatProgress(progress: ExportProgress): string {
  const { model, day, daysDone, daysTotal, rows } = progress;
  return `exporting ${model} ${day} (${daysDone}/${daysTotal} days, ${rows} rows)`;
}
