/** Picks who does the warehouse work of a command: the collector running on the file, or this process. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from './cli-error.js';
import { ControlClient } from './control-client.js';
import type { WarehouseFlags, WarehouseWork } from './warehouse-work.js';

/**
 * The work on the warehouse of `flags`: through the collector running on it, or on the file opened
 * here with the SQL models of `modelsDir` (default: the shipped ones). A running collector builds
 * the models of the folder it was started with: a different `modelsDir` is refused, since the
 * work would silently use the collector's models instead.
 */
export async function openWarehouse(flags: WarehouseFlags, modelsDir?: string): Promise<WarehouseWork> {
  checkModelsFolder(modelsDir);
  const control = await ControlClient.find(flags.warehouse);
  if (control && modelsDir !== undefined) {
    const running = (await control.status()).modelsDir;
    if (running !== resolve(modelsDir))
      throw new CliError(
        `a collector is running on ${flags.warehouse} with the models of ${running ?? 'its own folder'}, not ${resolve(modelsDir)}: ` +
          'give that folder (or none), or restart the collector with --models (MARKET_MODELS) set to this one',
      );
  }
  if (control) return control;
  const { LocalWarehouse } = await import('./local-warehouse.js');
  return new LocalWarehouse(flags, modelsDir);
}

/** Refuses a models folder that does not exist, before anything opens the warehouse with it. */
export function checkModelsFolder(modelsDir: string | undefined): void {
  if (modelsDir !== undefined && !existsSync(modelsDir))
    throw new CliError(
      `no models folder ${modelsDir}: make one from the shipped models with market models init ${modelsDir}`,
    );
}
