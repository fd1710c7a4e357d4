/** The warehouse: landing collector batches in DuckDB without loss or duplicates. */
export { findSqlDir } from '../shared/project-root.js';
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
export {
  isLakeInputError,
  LakeInputError,
  type LakeMoveSummary,
  type LakeStatus,
} from './lake/index.js';
export type { LoadSummary, WarehouseBatch, WriteSummary } from './landing/batch.js';
export { countBatchRows } from './landing/batch.js';
export { BatchWriter, type BatchWriterOptions } from './landing/batch-writer.js';
export type { AccountObjectKind, AccountStateRow, LedgerRow } from './landing/land-account.js';
export type { StreamEventRow } from './landing/land-events.js';
export type { FxRates } from './landing/land-fx.js';
export type { GapRow } from './landing/land-gaps.js';
export type { GoneRow } from './landing/land-gone.js';
export type { MinAskList } from './landing/land-minask.js';
export type { ObservationRow } from './landing/land-observations.js';
export type { SnapshotFetch } from './landing/land-snapshot.js';
export { mergeBatches } from './landing/merge-batches.js';
export { newestListedSql } from './live-set/live-set.js';
export type { Model, ModelRunResult, ModelRunSummary, ModelTestResult } from './models/index.js';
export { initModelsFolder, type ModelsFolderInit, ModelsFolderNotEmptyError } from './models/index.js';
export {
  buildReport,
  CHART_IDS,
  type ChartId,
  isWindow,
  type ReportOptions,
  type ReportProgress,
  type ReportSummary,
} from './report/index.js';
export { LISTING_KEYS } from './typing/listing-shape.js';
export { ACCOUNT_KEYS } from './typing/typed-account.js';
export { FX_KEYS, PRICE_ROW_KEYS } from './typing/typed-prices.js';
export { findMigrationsDir, type ModelSelection, Warehouse, type WarehouseOptions } from './warehouse.js';
