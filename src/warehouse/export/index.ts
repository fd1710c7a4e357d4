/** Parquet exports of the SQL models, Hive-partitioned by day, with a manifest. */
export { ExportInputError, isExportInputError } from './export-input-error.js';
export {
  type ExportOptions,
  type ExportProgress,
  type ExportSummary,
  exportModels,
  type ModelExportSummary,
  onExport,
} from './export-models.js';
export { type ExportColumn, isDay } from './export-plan.js';
export {
  MANIFEST,
  type Manifest,
  type ManifestFile,
  type ManifestModel,
  manifestSchema,
} from './manifest.js';
