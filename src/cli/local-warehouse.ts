/**
 * The warehouse work of `market sql`, `models`, `export`, `report` and `lake move` on the file opened in this
 * command's own process, when no collector holds it: each call opens the file (read-only unless
 * it builds models), does its work and closes it.
 */

import { DEFAULT_QUERY_TIMEOUT_MS } from '../collector/collector-options.js';
import { exportOptionsOf, streamQuery } from '../collector/control/index.js';
import type { LakeMoveRequest, ModelsRequest } from '../collector/control/protocol.js';
import {
  buildReport,
  exportModels,
  isExportInputError,
  isLakeInputError,
  type LakeMoveSummary,
  type ModelRunSummary,
  type ModelTestResult,
  Warehouse,
} from '../warehouse/index.js';
import { CliError } from './cli-error.js';
import type { RowsToPrint } from './sql-output.js';
import type { WarehouseFlags, WarehouseWork } from './warehouse-work.js';

/** The work done on the warehouse file opened here. */
export class LocalWarehouse implements WarehouseWork {
  constructor(
    private readonly flags: WarehouseFlags,
    /** Folder of the SQL models. @default the project's `sql/models` */
    private readonly modelsDir?: string,
  ) {}

  queryRows<T>(
    sql: string,
    timeoutMs: number | undefined,
    use: (rows: RowsToPrint) => Promise<T>,
  ): Promise<T> {
    return this.open(true, (warehouse) =>
      warehouse.withConnection((connection) =>
        streamQuery(connection, sql, timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS, (rows) =>
          use({ columns: rows.columns, batches: rows.chunks() }),
        ),
      ),
    );
  }

  queryToParquet(sql: string, out: string): Promise<number> {
    return this.open(true, (warehouse) => warehouse.queryToParquet(sql, out));
  }

  runModels(request: ModelsRequest): Promise<ModelRunSummary> {
    const { select = [], fullRefresh = false } = request;
    return this.open(false, (warehouse) => warehouse.refreshModels({ select, fullRefresh }));
  }

  testModels(request: ModelsRequest): Promise<ModelTestResult[]> {
    return this.open(true, (warehouse) => warehouse.testModels({ select: request.select ?? [] }));
  }

  export(...[request, onProgress]: Parameters<WarehouseWork['export']>): ReturnType<WarehouseWork['export']> {
    return this.open(
      true,
      (warehouse) => exportModels(warehouse, exportOptionsOf(request, onProgress)),
      (error) => (isExportInputError(error) ? 2 : 1),
    );
  }

  report(...[request, onProgress]: Parameters<WarehouseWork['report']>): ReturnType<WarehouseWork['report']> {
    const { out, window, items } = request;
    const options = { out, onProgress, ...(window ? { window } : {}), ...(items ? { items } : {}) };
    return this.open(true, (warehouse) => buildReport(warehouse, options));
  }

  moveToLake(request: LakeMoveRequest): Promise<LakeMoveSummary> {
    return this.open(
      false,
      (warehouse) => warehouse.moveToLake(Date.parse(request.before)),
      (error) => (isLakeInputError(error) ? 2 : 1),
    );
  }

  /**
   * Opens the warehouse with the flags' memory limit, runs `use`, and closes it; a failure becomes a
   * CliError with its message and the exit code `exitCodeOf` gives (2, a user's mistake, by default).
   */
  private async open<T>(
    readOnly: boolean,
    use: (warehouse: Warehouse) => Promise<T>,
    exitCodeOf: (error: unknown) => number = () => 2,
  ): Promise<T> {
    let warehouse: Warehouse;
    try {
      warehouse = await Warehouse.open(this.flags.warehouse, {
        readOnly,
        memoryLimit: this.flags.warehouseMemory,
        ...(this.modelsDir ? { modelsDir: this.modelsDir } : {}),
        ...(this.flags.lakeDir ? { lakeDir: this.flags.lakeDir } : {}),
      });
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    try {
      return await use(warehouse);
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError((error as Error).message, exitCodeOf(error));
    } finally {
      await warehouse.close();
    }
  }
}
