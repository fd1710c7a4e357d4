/** One transaction on a DuckDB connection: BEGIN, the work, COMMIT, or ROLLBACK that cannot hide the error. */
import type { DuckDBConnection } from '@duckdb/node-api';

/** Told when a ROLLBACK itself failed, with the error that made the rollback necessary. */
export type RollbackErrorHandler = (rollbackError: unknown, error: unknown) => void;

/**
 * Runs `work` between BEGIN TRANSACTION and COMMIT on `connection`, rolling back on any error. The
 * error of `work` (or of COMMIT) is the one thrown even when the ROLLBACK fails too: the rollback
 * failure becomes its `cause` when it has none, and is handed to `onRollbackError` (or emitted as a
 * process warning when neither can take it).
 *
 * @example
 * await inTransaction(connection, async () => {
 *   await connection.run('INSERT INTO t VALUES (1)');
 * });
 */
export async function inTransaction<T>(
  connection: DuckDBConnection,
  work: () => Promise<T>,
  onRollbackError?: RollbackErrorHandler,
): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch((rollbackError: unknown) => {
      reportRollbackError(rollbackError, error, onRollbackError);
    });
    throw error;
  }
}

/** Keeps the rollback failure next to the original error without replacing it. */
function reportRollbackError(rollbackError: unknown, error: unknown, onRollbackError?: RollbackErrorHandler) {
  const attached = error instanceof Error && error.cause === undefined;
  if (attached) error.cause = rollbackError;
  if (onRollbackError) onRollbackError(rollbackError, error);
  else if (!attached) process.emitWarning(`ROLLBACK failed after an error: ${String(rollbackError)}`);
}
