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

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
};

/** Bytes of a DuckDB size such as `64MB` or `1.5 GiB` (NaN when it is not one). */
export function bytesOf(size: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(size);
  const unit = UNITS[(match?.[2] || 'b').toLowerCase()];
  return match && unit ? Number(match[1]) * unit : Number.NaN;
}
