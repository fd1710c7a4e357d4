/** The lake: old days of the warehouse as Hive-partitioned parquet beside it, read with the file's rows. */
export { type CrashStep, crashPoint } from './crash-point.js';
export { type MoveContext, type OrderedTable, recordedLakeDir } from './finish-move.js';
export { isLakeInputError, LakeInputError } from './lake-input-error.js';
export { type LakeStatus, readLakeStatus } from './lake-status.js';
export { createWholeView, createWholeViews, hasLake } from './lake-views.js';
export {
  LAKE_MANIFEST,
  type LakeFile,
  type LakeManifest,
  type LakeMove,
  readLakeManifest,
} from './manifest.js';
export { type LakeMoveSummary, moveToLake, openLake } from './move.js';
export { markRebuilt, publishRebuilds, waitingRebuilds } from './rebuild.js';
export { hotTableOf, type LakeRelation, lakeRelationsOf, RAW_RELATIONS } from './relations.js';
export { sortFileTables } from './sort-file-tables.js';
export { connectionRunner, type SqlRunner } from './sql-runner.js';
