/**
 * The daemon's DuckDB, locked down for the life of the process: no file outside its own folders
 * can be read or written (DuckDB's `enable_external_access` off, `allowed_directories` set), no
 * extension is installed or loaded, and no setting can change again (`lock_configuration`) but
 * the four the warehouse itself adjusts as it works: its thread count, its memory limit (a full
 * build's own, for its length; the cache trim's), its checkpoint threshold (a burst's or calm's)
 * and a connection's time zone.
 * A SELECT through the door therefore reads the warehouse, its exports and its reports, nothing
 * else, and the daemon's own landing, snapshot loads and exports still reach their folders.
 */
import { resolve } from 'node:path';
import type { Warehouse } from '../../warehouse/index.js';

/** Locks the warehouse's DuckDB down to `folders` (the staging, export and report folders). */
export async function lockDownWarehouse(warehouse: Warehouse, folders: readonly string[]): Promise<void> {
  const allowed = folders.map((folder) => `'${resolve(folder).replaceAll("'", "''")}'`).join(', ');
  await warehouse.withConnection(async (connection) => {
    // In this order: the folders, then the switch they qualify, then the lock of everything.
    for (const statement of [
      `SET allowed_directories = [${allowed}]`,
      'SET enable_external_access = false',
      'SET autoinstall_known_extensions = false',
      'SET autoload_known_extensions = false',
      // WarehouseThreads widens and narrows the threads, a full build raises the memory limit for
      // its length (the cache trim lowers it for a moment), the batch writer's bursts and calms
      // set the checkpoint threshold; each connection opens with SET TimeZone.
      "SET allowed_configs = ['threads', 'memory_limit', 'checkpoint_threshold', 'TimeZone']",
      'SET lock_configuration = true',
    ])
      await connection.run(statement);
  });
}

/** True when `path` is `folder` or lies inside it (both resolved). */
export function isInside(folder: string, path: string): boolean {
  const base = resolve(folder);
  const target = resolve(path);
  return target === base || target.startsWith(`${base}/`);
}
