/** The warehouse schema: finding `sql/warehouse` and applying its numbered migrations in order. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Finds `sql/<name>` by walking up from this module to the project folder (the one holding
 * package.json and that folder), so it works from `src/` and from a compiled copy in `.build/src/`.
 */
export function findSqlDir(name: string, from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'sql', name);
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find sql/${name} in a parent folder of ${from}`);
  }
}

/** The folder of the warehouse migrations, `sql/warehouse` (see {@link findSqlDir}). */
export function findMigrationsDir(from?: string): string {
  return findSqlDir('warehouse', from);
}

/** The migration files of `dir` (`NNN_name.sql`), in the order they apply. */
export function listMigrations(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
}

/** Applies the migrations of `dir` not yet recorded in `schema_migrations`, each in its own transaction. */
export async function applyMigrations(connection: DuckDBConnection, dir: string): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version VARCHAR PRIMARY KEY,   -- migration file name
       applied_at TIMESTAMP NOT NULL  -- when it was applied (UTC)
     )`,
  );
  const applied = new Set(await readAppliedMigrations(connection));
  for (const file of listMigrations(dir)) {
    if (applied.has(file)) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(sql);
      await connection.run('INSERT INTO schema_migrations VALUES ($version, $now)', {
        version: file,
        now: new Date().toISOString().replace('Z', ''),
      });
      await connection.run('COMMIT');
    } catch (cause) {
      await connection.run('ROLLBACK');
      throw new Error(`warehouse migration ${file} failed: ${(cause as Error).message}`, { cause });
    }
  }
}

/** The versions recorded in `schema_migrations` (none when the table does not exist). */
export async function readAppliedMigrations(connection: DuckDBConnection): Promise<string[]> {
  const exists = await connection.runAndReadAll(
    "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_migrations'",
  );
  if (exists.currentRowCount === 0) return [];
  const reader = await connection.runAndReadAll('SELECT version FROM schema_migrations');
  return reader.getRowObjectsJS().map((r) => String(r.version));
}
