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
export {
  ExportInputError,
  type ExportOptions,
  type ExportProgress,
  type ExportSummary,
  exportModels,
  isDay,
  isExportInputError,
  type ModelExportSummary,
} from './export/index.js';
export { jsonSafeConverter } from './json-values.js';
export { mergeBatches } from './merge-batches.js';
export { findMigrationsDir, findSqlDir } from './migrations.js';
export type { Model, ModelRunResult, ModelRunSummary, ModelTestResult } from './models/index.js';
export { type ModelSelection, Warehouse, type WarehouseOptions } from './warehouse.js';
