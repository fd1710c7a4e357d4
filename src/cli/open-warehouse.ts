/** Picks who does the warehouse work of a command: the collector running on the file, or this process. */
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import type { WarehouseFlags, WarehouseWork } from './warehouse-work.js';

/**
 * The work on the warehouse of `flags`: through the collector running on it, or on the file opened
 * here (with the SQL models of `modelsDir`, which a running collector does not take: it has its own).
 */
export async function openWarehouse(flags: WarehouseFlags, modelsDir?: string): Promise<WarehouseWork> {
  const control = await ControlClient.find(flags.warehouse);
  if (control && modelsDir)
    throw new CliError(
      `a collector is running on ${flags.warehouse} and builds and exports the models of its own folder; --models-dir applies only when none runs`,
    );
  if (control) return control;
  const { LocalWarehouse } = await import('./local-warehouse.js');
  return new LocalWarehouse(flags, modelsDir);
}
