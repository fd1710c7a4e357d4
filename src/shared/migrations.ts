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
 * Applies the migrations of `dir` not yet recorded in `schema_migrations`, in order, each in its
 * own transaction with its record; a failed one rolls back and stops the run with its file named.
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
  for (const file of listMigrations(dir)) {
    if (applied.has(file)) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
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

/** The migrations of `dir` that `connection`'s database has not applied yet, in order. */
export async function findMissingMigrations(connection: DuckDBConnection, dir: string): Promise<string[]> {
  const applied = new Set(await readAppliedMigrations(connection));
  return listMigrations(dir).filter((m) => !applied.has(m));
}
