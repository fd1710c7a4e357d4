/**
 * What `market sql`, `models`, `export`, `report` and `lake move` do on a warehouse, as one interface with two
 * implementations: the control client does the work inside the collector running on the file
 * (DuckDB lets one process open it), `LocalWarehouse` on the file opened here; open-warehouse.ts
 * picks one.
 */
import type {
  ExportRequest,
  LakeMoveRequest,
  ModelsRequest,
  ReportRequest,
} from '../collector/control/protocol.js';
import type {
  ExportProgress,
  ExportSummary,
  LakeMoveSummary,
  ModelRunSummary,
  ModelTestResult,
  ReportProgress,
  ReportSummary,
} from '../warehouse/index.js';
import type { RowsToPrint } from './sql-output.js';

/** The warehouse flags every command that opens the file takes. */
export interface WarehouseFlags {
  warehouse: string;
  /** DuckDB's memory limit, e.g. `1GB`. */
  warehouseMemory: string;
  /** The lake folder (`market lake move --lake`); none: the warehouse's own. */
  lakeDir?: string | undefined;
}

/** The work on one warehouse. */
export interface WarehouseWork {
  /** One read-only query, its rows handed to `use` as they arrive; `timeoutMs` defaults to 60 s (or the collector's). */
  queryRows<T>(
    sql: string,
    timeoutMs: number | undefined,
    use: (rows: RowsToPrint) => Promise<T>,
  ): Promise<T>;
  /** The rows of one read-only query written to the parquet file `out`; how many. */
  queryToParquet(sql: string, out: string, timeoutMs: number | undefined): Promise<number>;
  /** Builds the selected models (all with none). */
  runModels(request: ModelsRequest): Promise<ModelRunSummary>;
  /** Runs the tests of the selected models (all with none). */
  testModels(request: ModelsRequest): Promise<ModelTestResult[]>;
  /** Exports the models to parquet. */
  export(request: ExportRequest, onProgress: (progress: ExportProgress) => void): Promise<ExportSummary>;
  /** Builds a market report. */
  report(request: ReportRequest, onProgress: (progress: ReportProgress) => void): Promise<ReportSummary>;
  /** Moves every row landed before the request's instant into the lake. */
  moveToLake(request: LakeMoveRequest): Promise<LakeMoveSummary>;
}
