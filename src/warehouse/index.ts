/** The warehouse: landing collector batches in DuckDB without loss or duplicates. */
export { findSqlDir } from '../shared/project-root.js';
export type { LoadSummary, WarehouseBatch, WriteSummary } from './batch.js';
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
export type { AccountObjectKind, AccountStateRow, LedgerRow } from './land-account.js';
export type { StreamEventRow } from './land-events.js';
export type { FxRates } from './land-fx.js';
export type { GapRow } from './land-gaps.js';
export type { GoneRow } from './land-gone.js';
export type { MinAskList } from './land-minask.js';
export type { ObservationRow } from './land-observations.js';
export type { SnapshotFetch } from './land-snapshot.js';
export { LISTING_KEYS } from './listing-shape.js';
export { newestListedSql } from './live-set.js';
export { mergeBatches } from './merge-batches.js';
export type { Model, ModelRunResult, ModelRunSummary, ModelTestResult } from './models/index.js';
export {
  buildReport,
  CHART_IDS,
  type ChartId,
  isWindow,
  type ReportOptions,
  type ReportProgress,
  type ReportSummary,
} from './report/index.js';
export { ACCOUNT_KEYS } from './typed-account.js';
export { FX_KEYS, PRICE_ROW_KEYS } from './typed-prices.js';
export { findMigrationsDir, type ModelSelection, Warehouse, type WarehouseOptions } from './warehouse.js';
