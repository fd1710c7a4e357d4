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

/** DuckDB's size units (its settings' own): KB, MB… powers of 1000, KiB, MiB… of 1024; bytes without one. */
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  bytes: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** The bytes of a size as DuckDB's settings take it (`16MB`, `1.5GiB`, `4096`); throws on anything else. */
export function sizeBytes(size: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(size);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) throw new Error(`not a size DuckDB takes: ${size} (e.g. 16MB, 1GiB)`);
  return Number(match[1]) * unit;
}
