/**
 * How a long-running command stops: on SIGINT or SIGTERM it closes what it runs, says so on stderr
 * and exits. `npm start` execs node, so npm hands the signal straight to this process; a terminal's
 * Ctrl-C reaches it twice (from the terminal and from npm), so later signals are ignored.
 */

/**
 * Runs `close` once on the first SIGINT or SIGTERM, writes `stopped: <what>` to stderr and exits 0;
 * exits 1 if closing fails, or outlasts `deadlineMs` when one is given (what was committed is safe,
 * and a restart resumes from it).
 */
export function stopOnSignal(what: string, close: () => Promise<void>, deadlineMs?: number): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (deadlineMs !== undefined)
      setTimeout(() => {
        process.stderr.write(`stopped: ${what} did not close within ${deadlineMs} ms; exiting anyway\n`);
        process.exit(1);
      }, deadlineMs);
    close().then(
      () => {
        process.stderr.write(`stopped: ${what} closed (${signal})\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`stopped: ${what} failed to close: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // Listeners stay installed: without one, a second signal would kill the process mid-stop.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
