/** The warehouse: landing collector batches in DuckDB without loss or duplicates. */
export type {
  FxRates,
  GapRow,
  GoneRow,
  LoadSummary,
  MinAskList,
  ObservationRow,
  SnapshotFetch,
  StreamEventRow,
  WarehouseBatch,
  WriteSummary,
} from './batch.js';
export { countBatchRows } from './batch.js';
export { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
export {
  isWarehouseLockedError,
  isWarehouseWriteError,
  WarehouseLockedError,
  WarehouseWriteError,
} from './errors.js';
export { jsonSafeConverter } from './json-values.js';
export { mergeBatches } from './merge-batches.js';
export { findMigrationsDir } from './migrations.js';
export { Warehouse, type WarehouseOptions } from './warehouse.js';
