/**
 * The warehouse's defaults, written once here: the warehouse opens with them and the `market` flag
 * tables show them. With them, the checks of the day and window values those flags take. Light to
 * load (no DuckDB), since every `--help` reads it.
 */
export { isDay } from './export/export-plan.js';
export { isWindow } from './report/report-window.js';

/** The defaults of the warehouse's options a user may change (see WarehouseOptions). */
export const WAREHOUSE_DEFAULTS: { memoryLimit: string; checkpointThreshold: string } = {
  /** Enough to build the models over about a million listing events; raise it for longer histories. */
  memoryLimit: '1GB',
  /** Four times DuckDB's own: a stream burst then checkpoints every 40,000 events or so, not every 10,000. */
  checkpointThreshold: '64MB',
};
