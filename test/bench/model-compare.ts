/**
 * Checks that an incremental refresh leaves the same tables as a full rebuild: the tables are
 * copied aside after the incremental refresh, then compared once the full rebuild has run. Each
 * side is read once into a fingerprint per bucket of rows (1,024 buckets by a hash of the row: its
 * count and the sum of its rows' 64-bit hashes), which streams within the warehouse's memory limit
 * whatever the table's size; only the buckets whose fingerprints differ are compared row by row
 * with `EXCEPT ALL` both ways, for the counts and samples of the rows that differ. DOUBLE columns
 * are compared to 10 significant digits, since sums of floats in another order differ in the last
 * bits; `built_watermark` (the watermark of the build that wrote a row) is left out, as it differs
 * between the two by design.
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
/** Buckets of rows each side's fingerprint has. */
const BUCKETS = 1024;

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
  const named = (columns.getRowObjectsJS() as { column_name: string; data_type: string }[]).map(
    ({ column_name: name, data_type: type }) => {
      const column = `"${name.replaceAll('"', '""')}"`;
      if (type !== 'DOUBLE' && type !== 'FLOAT') return { column, value: column };
      // 10 significant digits; zero, NaN and infinities stay as they are.
      return {
        column,
        value: `CASE WHEN ${column} = 0 OR NOT isfinite(${column}) THEN ${column}
                ELSE round(${column}, 9 - CAST(floor(log10(abs(${column}))) AS INTEGER)) END`,
      };
    },
  );
  const select = named.map((c) => `${c.value} AS ${c.column}`).join(', ');
  const rowHash = `hash(${named.map((c) => c.value).join(', ')})`;
  const fingerprint = (table: string) =>
    `SELECT h % ${BUCKETS} AS bucket, count(*) AS n, sum(CAST(h AS HUGEINT)) AS s
     FROM (SELECT ${rowHash} AS h FROM ${table}) GROUP BY ALL`;
  const compared = await connection.runAndReadAll(
    `SELECT coalesce(i.bucket, f.bucket) AS bucket, coalesce(i.n, 0) AS incremental, coalesce(f.n, 0) AS full,
       i.n IS DISTINCT FROM f.n OR i.s IS DISTINCT FROM f.s AS differs
     FROM (${fingerprint(`${SCHEMA}.${model}`)}) i FULL JOIN (${fingerprint(`main.${model}`)}) f USING (bucket)`,
  );
  const buckets = compared.getRowObjectsJS() as {
    bucket: bigint;
    incremental: bigint;
    full: bigint;
    differs: boolean;
  }[];
  const differing = buckets.filter((b) => b.differs).map((b) => String(b.bucket));
  const diff: ModelDiff = {
    model,
    incrementalRows: buckets.reduce((n, b) => n + Number(b.incremental), 0),
    fullRows: buckets.reduce((n, b) => n + Number(b.full), 0),
    onlyIncremental: 0,
    onlyFull: 0,
    sample: { onlyIncremental: [], onlyFull: [] },
  };
  if (differing.length === 0) return null;
  const inBuckets = `WHERE ${rowHash} % ${BUCKETS} IN (${differing.join(', ')})`;
  const incremental = `SELECT ${select} FROM ${SCHEMA}.${model} ${inBuckets}`;
  const full = `SELECT ${select} FROM main.${model} ${inBuckets}`;
  const count = async (sql: string) =>
    Number((await connection.runAndReadAll(`SELECT count(*) FROM (${sql})`)).getRows()[0]?.[0]);
  const sample = async (sql: string) =>
    (await connection.runAndReadAll(`${sql} LIMIT 3`)).convertRowObjects(jsonSafeConverter) as Record<
      string,
      unknown
    >[];
  const onlyIncrementalSql = `${incremental} EXCEPT ALL ${full}`;
  const onlyFullSql = `${full} EXCEPT ALL ${incremental}`;
  diff.onlyIncremental = await count(onlyIncrementalSql);
  diff.onlyFull = await count(onlyFullSql);
  diff.sample = { onlyIncremental: await sample(onlyIncrementalSql), onlyFull: await sample(onlyFullSql) };
  return diff;
}
