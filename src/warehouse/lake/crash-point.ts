/**
 * The steps of a lake move or rebuild where the kill tests stop the process: with
 * `MARKET_LAKE_CRASH_AT` set to a step's name, the process kills itself (SIGKILL) when it reaches
 * it, as a power cut would.
 */

/**
 * A step: a full build of a moved model done but not committed (`building`), the files written,
 * the manifest renamed, the deletes begun, the first replaced file removed (`removing`); a merge of
 * months' days after a move: its month files written, its manifest renamed, the first day file removed.
 */
export type CrashStep =
  | 'building'
  | 'copied'
  | 'manifest'
  | 'deleting'
  | 'removing'
  | 'month-copied'
  | 'month-manifest'
  | 'month-removing';

/** Kills this process with SIGKILL when `MARKET_LAKE_CRASH_AT` names `step`. */
export function crashPoint(step: CrashStep): void {
  if (process.env.MARKET_LAKE_CRASH_AT === step) process.kill(process.pid, 'SIGKILL');
}
