/**
 * Checks that an incremental refresh leaves the same tables as a full rebuild: the tables are
 * copied aside after the incremental refresh, then compared with `EXCEPT ALL` both ways (and by
 * row count) once the full rebuild has run. DOUBLE columns are compared to 10 significant digits,
 * since sums of floats in another order differ in the last bits; `built_watermark` (the watermark
 * of the build that wrote a row) is left out, as it differs between the two by design.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { jsonSafeConverter, type Warehouse } from '../../src/warehouse/index.js';

/** How one model's incremental build differs from its full rebuild. */
export interface ModelDiff {
  model: string;
  incrementalRows: number;
  fullRows: number;
  /** Rows only the incremental build has, and only the full rebuild has (with multiplicity). */
  onlyIncremental: number;
  onlyFull: number;
  /** Up to 3 rows of each side. */
  sample: { onlyIncremental: Record<string, unknown>[]; onlyFull: Record<string, unknown>[] };
}

const SCHEMA = 'bench_check';

/** Copies the tables of `models` into a schema of their own, to compare after the next build. */
export async function keepModelTables(warehouse: Warehouse, models: readonly string[]): Promise<void> {
  await warehouse.withConnection(async (connection) => {
    await connection.run(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    for (const model of models) {
      await connection.run(`CREATE OR REPLACE TABLE ${SCHEMA}.${model} AS SELECT * FROM main.${model}`);
    }
  });
}

/** Compares the kept tables with the current ones and drops the copies; returns the models that differ. */
export async function diffModelTables(warehouse: Warehouse, models: readonly string[]): Promise<ModelDiff[]> {
  return warehouse.withConnection(async (connection) => {
    const diffs: ModelDiff[] = [];
    for (const model of models) {
      const diff = await diffModel(connection, model);
      if (diff) diffs.push(diff);
    }
    await connection.run(`DROP SCHEMA ${SCHEMA} CASCADE`);
    return diffs;
  });
}

async function diffModel(connection: DuckDBConnection, model: string): Promise<ModelDiff | null> {
  const columns = await connection.runAndReadAll(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'main' AND table_name = $model AND column_name <> 'built_watermark'
     ORDER BY ordinal_position`,
    { model },
  );
  const select = (columns.getRowObjectsJS() as { column_name: string; data_type: string }[])
    .map(({ column_name: name, data_type: type }) => {
      const column = `"${name.replaceAll('"', '""')}"`;
      if (type !== 'DOUBLE' && type !== 'FLOAT') return column;
      // 10 significant digits; zero, NaN and infinities stay as they are.
      return `CASE WHEN ${column} = 0 OR NOT isfinite(${column}) THEN ${column}
                ELSE round(${column}, 9 - CAST(floor(log10(abs(${column}))) AS INTEGER)) END AS ${column}`;
    })
    .join(', ');
  const incremental = `SELECT ${select} FROM ${SCHEMA}.${model}`;
  const full = `SELECT ${select} FROM main.${model}`;
  const count = async (sql: string) =>
    Number((await connection.runAndReadAll(`SELECT count(*) FROM (${sql})`)).getRows()[0]?.[0]);
  const sample = async (sql: string) =>
    (await connection.runAndReadAll(`${sql} LIMIT 3`)).convertRowObjects(jsonSafeConverter) as Record<
      string,
      unknown
    >[];
  const onlyIncrementalSql = `${incremental} EXCEPT ALL ${full}`;
  const onlyFullSql = `${full} EXCEPT ALL ${incremental}`;
  const diff: ModelDiff = {
    model,
    incrementalRows: await count(incremental),
    fullRows: await count(full),
    onlyIncremental: await count(onlyIncrementalSql),
    onlyFull: await count(onlyFullSql),
    sample: { onlyIncremental: [], onlyFull: [] },
  };
  if (diff.onlyIncremental === 0 && diff.onlyFull === 0 && diff.incrementalRows === diff.fullRows)
    return null;
  diff.sample = { onlyIncremental: await sample(onlyIncrementalSql), onlyFull: await sample(onlyFullSql) };
  return diff;
}
