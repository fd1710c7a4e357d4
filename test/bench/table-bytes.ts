/**
 * What a warehouse's tables cost, apart from how the file came to hold them (partly filled blocks,
 * one row group per checkpoint, the metadata of many small segments): each table copied alone into
 * a fresh DuckDB file of 16 KiB blocks, or written as the lake writes it (parquet, zstd).
 */
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/** Bytes per table of the DuckDB file at `path` (opened read-only), copied alone into a fresh file under `scratch`. */
export async function compactTableBytes(path: string, scratch: string): Promise<Map<string, number>> {
  return withSource(path, async ({ run, rows, tables }) => {
    const copy = join(scratch, 'table-bytes.duckdb');
    const bytesOf = async (create: string) => {
      await rm(copy, { force: true });
      await run(`ATTACH '${copy}' AS copy (BLOCK_SIZE 16384)`);
      await run(create);
      await run('CHECKPOINT copy');
      const [size] = await rows(
        "SELECT block_size * used_blocks AS used FROM pragma_database_size() WHERE database_name = 'copy'",
      );
      await run('DETACH copy');
      return Number(size?.used ?? 0);
    };
    const empty = await bytesOf('CREATE TABLE copy.empty (x INTEGER)');
    const bytes = new Map<string, number>();
    for (const name of tables)
      bytes.set(name, (await bytesOf(`CREATE TABLE copy."${name}" AS FROM source."${name}"`)) - empty);
    await rm(copy, { force: true });
    return bytes;
  });
}

/**
 * Bytes of each of `names` (tables of the DuckDB file at `path`) written whole as one parquet file,
 * zstd, as a lake move writes a day (a 128-bit integer as its decimal text, as the move does).
 */
export async function parquetTableBytes(
  path: string,
  scratch: string,
  names: readonly string[],
): Promise<Map<string, number>> {
  return withSource(path, async ({ run, rows, tables }) => {
    const file = join(scratch, 'table-bytes.parquet');
    const bytes = new Map<string, number>();
    for (const name of names.filter((n) => tables.includes(n))) {
      const wide = await rows(
        `SELECT column_name AS name FROM duckdb_columns()
         WHERE database_name = 'source' AND schema_name = 'main' AND table_name = '${name}' AND data_type IN ('HUGEINT', 'UHUGEINT')`,
      );
      const replace = wide.length
        ? ` REPLACE (${wide.map(({ name: c }) => `CAST("${c}" AS VARCHAR) AS "${c}"`).join(', ')})`
        : '';
      await run(
        `COPY (SELECT *${replace} FROM source."${name}") TO '${file}' (FORMAT parquet, COMPRESSION zstd)`,
      );
      bytes.set(name, (await stat(file)).size);
    }
    await rm(file, { force: true });
    return bytes;
  });
}

/** What {@link withSource} hands its work: statements, rows and the source's table names. */
interface Source {
  run: (sql: string) => Promise<void>;
  rows: (sql: string) => Promise<Record<string, unknown>[]>;
  tables: string[];
}

/** Runs `work` with the file at `path` attached read-only as `source`. */
async function withSource<T>(path: string, work: (source: Source) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const run = async (sql: string) => {
    await connection.run(sql);
  };
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
  try {
    await run(`ATTACH '${path}' AS source (READ_ONLY)`);
    const tables = await rows(
      "SELECT table_name AS name FROM duckdb_tables() WHERE database_name = 'source' AND schema_name = 'main'",
    );
    return await work({ run, rows, tables: tables.map(({ name }) => String(name)) });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
