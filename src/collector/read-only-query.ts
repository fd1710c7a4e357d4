/**
 * Ad hoc SQL through the daemon, read-only as DuckDB itself sees it: the statement is prepared and
 * refused unless its type only reads, and it runs in a read-only transaction, so that even an
 * `EXPLAIN ANALYZE` of a write cannot change anything.
 */
import { type DuckDBConnection, type DuckDBPreparedStatement, StatementType } from '@duckdb/node-api';
import { jsonSafeConverter, type Warehouse } from '../warehouse/index.js';
import { ControlError, failedWith } from './control-errors.js';

/** Statement types that only read (SHOW, DESCRIBE, SUMMARIZE and `FROM t` are SELECTs to DuckDB). */
const READING = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN]);

const REFUSAL = 'only read-only queries (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) run through the daemon';

/** The rows of one read-only statement, with JSON-safe values. */
export function queryReadOnly(warehouse: Warehouse, sql: string): Promise<Record<string, unknown>[]> {
  return inReadOnlyTransaction(warehouse, async (connection) => {
    const statement = await prepareReading(connection, sql, READING);
    try {
      const reader = await statement.runAndReadAll();
      return reader.convertRowObjects(jsonSafeConverter);
    } catch (error) {
      throw failedWith('query_failed', error);
    }
  });
}

/** Writes the rows of one SELECT to the parquet file `out` and returns how many it holds. */
export async function queryReadOnlyToParquet(
  warehouse: Warehouse,
  sql: string,
  out: string,
): Promise<number> {
  await inReadOnlyTransaction(warehouse, (connection) =>
    prepareReading(connection, sql, new Set([StatementType.SELECT])),
  );
  try {
    return await warehouse.queryToParquet(sql, out);
  } catch (error) {
    throw failedWith('query_failed', error);
  }
}

function inReadOnlyTransaction<T>(
  warehouse: Warehouse,
  use: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  return warehouse.withConnection(async (connection) => {
    await connection.run('BEGIN TRANSACTION READ ONLY');
    try {
      return await use(connection);
    } finally {
      await connection.run('ROLLBACK');
    }
  });
}

/** Prepares `sql` (one statement) and refuses it unless DuckDB says it is of an allowed type. */
async function prepareReading(
  connection: DuckDBConnection,
  sql: string,
  allowed: ReadonlySet<StatementType>,
): Promise<DuckDBPreparedStatement> {
  let statement: DuckDBPreparedStatement;
  try {
    statement = await connection.prepare(sql);
  } catch (error) {
    throw failedWith('query_failed', error);
  }
  if (!allowed.has(statement.statementType))
    throw new ControlError('not_read_only', `${REFUSAL}; this is ${StatementType[statement.statementType]}`);
  return statement;
}
