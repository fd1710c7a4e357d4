/**
 * The control file beside a warehouse: where the running daemon's endpoint listens and its token.
 * Kept apart from the endpoint so the CLI finds a daemon without loading Fastify or DuckDB.
 */

/** What the control file holds: enough for the owner's CLI to find and enter the endpoint. */
export interface ControlFile {
  pid: number;
  port: number;
  /** Sent as `Authorization: Bearer <token>`; new on every run. */
  token: string;
}

/** Where a daemon's control address is written for a warehouse file. */
export function controlFileOf(warehousePath: string): string {
  return `${warehousePath}.collector.json`;
}
