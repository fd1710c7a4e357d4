/** Progress of a long command on stderr: one line rewritten in place on a terminal, milestone lines otherwise. */

/** Prints progress to a stream. */
export interface ProgressPrinter<P> {
  update(progress: P): void;
  /** Clears the line being rewritten, if any. */
  end(): void;
}

/** How a command says its progress. */
export interface ProgressFormat<P> {
  /** The line shown (and rewritten) on a terminal. */
  live(progress: P): string;
  /** The line kept when the stream is not a terminal, or null to say nothing at this step. */
  milestone(progress: P): string | null;
}

/** A printer for `stream`: a single updating line (`\r`) when it is a TTY, milestone lines otherwise. */
export function createLinePrinter<P>(
  stream: NodeJS.WriteStream,
  format: ProgressFormat<P>,
): ProgressPrinter<P> {
  if (stream.isTTY) {
    let shown = false;
    return {
      update(progress) {
        shown = true;
        stream.write(`\r${format.live(progress)}\x1b[K`);
      },
      end() {
        if (shown) stream.write('\r\x1b[K');
      },
    };
  }
  return {
    update(progress) {
      const line = format.milestone(progress);
      if (line !== null) stream.write(`${line}\n`);
    },
    end() {},
  };
}
