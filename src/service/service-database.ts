/** How the service opens its database file, for the server and for `market keys` alike. */
import { Database } from '../shared/database.js';
import { projectPath } from '../shared/project-root.js';

/**
 * DuckDB's block size for a service file it creates; a file keeps the size it was made with.
 * Rows appended to a table since its last checkpoint take a block per column and validity mask
 * until the next one: at DuckDB's 256 KiB the main job's service held 53-67 MiB so
 * (`IN_MEMORY_TABLE`), at 64 KiB a quarter (`test/bench/README.md`, "soak"), as the warehouse found.
 */
export const SERVICE_BLOCK_BYTES = 65_536;

/** Opens (creating and migrating) the service database at `path`; fails when another process holds it. */
export function openServiceDatabase(path: string): Promise<Database> {
  return Database.open(path, {
    migrationsDir: projectPath('sql', 'service'),
    config: { default_block_size: String(SERVICE_BLOCK_BYTES) },
  });
}
