/** Numbered SQL migrations (`NNN_name.sql`): listing them, applying the missing ones, reading what applied. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction, type RollbackErrorHandler } from './transaction.js';

/** The migration files of `dir` (`NNN_name.sql`), in the order they apply. */
export function listMigrations(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
}

/**
 * The storage version a migration needs, from its line `-- storage: vX.Y.Z`: it applies only to a
 * file of that version or later (DuckDB keeps a file at the version it was made with, and in an
 * older one a storage feature such as `USING COMPRESSION zstd` silently stores the column
 * uncompressed). None: any file.
 */
function neededStorage(sql: string): number[] | null {
  const match = /^-- storage: v(\d+)\.(\d+)\.(\d+)\s*$/m.exec(sql);
  return match ? match.slice(1).map(Number) : null;
}

/** The storage version of `connection`'s database, e.g. [1, 2, 0]; null in memory (no file, no limit). */
async function storageVersion(connection: DuckDBConnection): Promise<number[] | null> {
  const reader = await connection.runAndReadAll(
    `SELECT element_at(tags, 'storage_version')[1] AS v
     FROM duckdb_databases() WHERE database_name = current_database()`,
  );
  const match = /^v(\d+)\.(\d+)\.(\d+)/.exec(String(reader.getRows()[0]?.[0] ?? ''));
  return match ? match.slice(1).map(Number) : null;
}

/** Whether version `have` (null: no limit) is `need` or later. */
function atLeast(have: number[] | null, need: number[]): boolean {
  if (have === null) return true;
  for (const [i, part] of need.entries()) if ((have[i] ?? 0) !== part) return (have[i] ?? 0) > part;
  return true;
}

/** The migrations of `dir` the database's storage version allows, not yet recorded in `applied`. */
async function migrationsToApply(connection: DuckDBConnection, dir: string, applied: Set<string>) {
  const pending = listMigrations(dir)
    .filter((file) => !applied.has(file))
    .map((file) => ({ file, sql: readFileSync(join(dir, file), 'utf8') }));
  // Asked only when a pending migration needs it: an up-to-date file opens without the query.
  if (pending.every(({ sql }) => neededStorage(sql) === null)) return pending;
  const version = await storageVersion(connection);
  return pending.filter(({ sql }) => {
    const need = neededStorage(sql);
    return need === null || atLeast(version, need);
  });
}

/**
 * Applies the migrations of `dir` not yet recorded in `schema_migrations` (those the file's storage
 * version allows), in order, each in its own transaction with its record; a failed one rolls back
 * and stops the run with its file named.
 */
export async function applyMigrations(
  connection: DuckDBConnection,
  dir: string,
  onRollbackError?: RollbackErrorHandler,
): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version VARCHAR PRIMARY KEY,   -- migration file name
       applied_at TIMESTAMP NOT NULL  -- when it was applied (UTC)
     )`,
  );
  const applied = new Set(await readAppliedMigrations(connection));
  for (const { file, sql } of await migrationsToApply(connection, dir, applied)) {
    try {
      await inTransaction(
        connection,
        async () => {
          await connection.run(sql);
          await connection.run(
            'INSERT INTO schema_migrations (version, applied_at) VALUES ($version, $now)',
            {
              version: file,
              now: new Date().toISOString().replace('Z', ''),
            },
          );
        },
        onRollbackError,
      );
    } catch (cause) {
      throw new Error(`migration ${file} failed: ${(cause as Error).message}`, { cause });
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

/** The migrations of `dir` that `connection`'s database has not applied yet (and could), in order. */
export async function findMissingMigrations(connection: DuckDBConnection, dir: string): Promise<string[]> {
  const applied = new Set(await readAppliedMigrations(connection));
  return (await migrationsToApply(connection, dir, applied)).map(({ file }) => file);
}
