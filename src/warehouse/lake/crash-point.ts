/**
 * The steps of a lake move where the kill tests stop the process: with `MARKET_LAKE_CRASH_AT` set
 * to a step's name, the process kills itself (SIGKILL) when the move reaches it, as a power cut would.
 */

/** A step of a move: its files written, its manifest renamed, its deletes begun. */
export type CrashStep = 'copied' | 'manifest' | 'deleting';

/** Kills this process with SIGKILL when `MARKET_LAKE_CRASH_AT` names `step`. */
export function crashPoint(step: CrashStep): void {
  if (process.env.MARKET_LAKE_CRASH_AT === step) process.kill(process.pid, 'SIGKILL');
}
