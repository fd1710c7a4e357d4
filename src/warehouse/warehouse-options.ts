/**
 * The warehouse's defaults, written once here: the warehouse opens with them and the `market` flag
 * tables show them. With them, the checks of the day and window values those flags take. Light to
 * load (no DuckDB), since every `--help` reads it.
 */
export { isDay } from './export/export-plan.js';
export { isWindow } from './report/report-window.js';

/** The defaults of the warehouse's options a user may change (see WarehouseOptions). */
export const WAREHOUSE_DEFAULTS: {
  memoryLimit: string;
  fullBuildMemoryLimit: string;
  checkpointThreshold: string;
  calmCheckpointThreshold: string;
  departedKeptMs: number;
  cachedBlocksKept: number;
} = {
  /** Enough to build the models over about a million listing events; raise it for longer histories. */
  memoryLimit: '1GB',
  /**
   * While an incremental model builds in full: DuckDB allocates beyond its pool then, and the
   * process peaked at 1,467 MiB over 90 days at 1GB, 1,130 MiB at 640MB (`npm run bench models`).
   */
  fullBuildMemoryLimit: '640MB',
  /** Four times DuckDB's own: a stream burst then checkpoints every 40,000 events or so, not every 10,000. */
  checkpointThreshold: '64MB',
  /**
   * A quarter of that while no burst lands: what the log holds sits in DuckDB's memory until the
   * checkpoint, and at 64MB it swung the main job's DuckDB memory 50-125 MiB every 6-7 minutes.
   */
  calmCheckpointThreshold: '16MB',
  /**
   * An hour: far longer than a page item or a verdict takes to land after it was read, so the
   * history is read for a late one only when something landed abnormally late.
   */
  departedKeptMs: 3_600_000,
  /** 64 MiB: about what an apply reads of the file (the live set's state), so the next one finds it. */
  cachedBlocksKept: 64 * 2 ** 20,
};
