/** Work on the warehouse file opened in this command's own process, when no collector holds it. */
import { Warehouse, type WarehouseOptions } from '../warehouse/index.js';
import { CliError } from './cli-error.js';

/** The warehouse flags every command that opens the file takes. */
export interface WarehouseFlags {
  warehouse: string;
  /** DuckDB's memory limit, e.g. `1GB`. */
  warehouseMemory: string;
}

/**
 * Opens the warehouse with the flags' memory limit, runs `use`, and closes it; a failure becomes a
 * CliError with its message and the exit code `exitCodeOf` gives (2, a user's mistake, by default).
 */
export async function withWarehouse<T>(
  flags: WarehouseFlags,
  options: Omit<WarehouseOptions, 'memoryLimit'>,
  use: (warehouse: Warehouse) => Promise<T>,
  exitCodeOf: (error: unknown) => number = () => 2,
): Promise<T> {
  let warehouse: Warehouse;
  try {
    warehouse = await Warehouse.open(flags.warehouse, { ...options, memoryLimit: flags.warehouseMemory });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  try {
    return await use(warehouse);
  } catch (error) {
    throw new CliError((error as Error).message, exitCodeOf(error));
  } finally {
    await warehouse.close();
  }
}
