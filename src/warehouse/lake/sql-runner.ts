/** Statements on one DuckDB connection or transaction, as the lake's steps run them. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Params } from '../../shared/database.js';

/** Runs SQL on the writer's transaction or on a connection of its own. */
export interface SqlRunner {
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  run(sql: string, params?: Params): Promise<void>;
}

/** `connection` as a {@link SqlRunner}. */
export function connectionRunner(connection: DuckDBConnection): SqlRunner {
  return {
    all: async <T>(sql: string, params?: Params) =>
      (await connection.runAndReadAll(sql, params)).getRowObjectsJS() as T[],
    run: async (sql: string, params?: Params) => {
      await connection.run(sql, params);
    },
  };
}
