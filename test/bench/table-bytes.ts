/**
 * Each table's bytes stored compactly: copied alone into a fresh DuckDB file of 16 KiB blocks and
 * checkpointed, less the bytes of an empty one. What a table's rows cost once written in one piece,
 * apart from how the warehouse file came to hold them (partly filled blocks, one row group per
 * checkpoint, the metadata of many small segments).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/** Bytes per table of the DuckDB file at `path` (opened read-only), copies made under `scratch`. */
export async function compactTableBytes(path: string, scratch: string): Promise<Map<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
  try {
    await connection.run(`ATTACH '${path}' AS source (READ_ONLY)`);
    const tables = await rows(
      "SELECT table_name AS name FROM duckdb_tables() WHERE database_name = 'source' AND schema_name = 'main'",
    );
    const copy = join(scratch, 'table-bytes.duckdb');
    const bytesOf = async (create: string) => {
      await rm(copy, { force: true });
      await connection.run(`ATTACH '${copy}' AS copy (BLOCK_SIZE 16384)`);
      await connection.run(create);
      await connection.run('CHECKPOINT copy');
      const [size] = await rows(
        "SELECT block_size * used_blocks AS used FROM pragma_database_size() WHERE database_name = 'copy'",
      );
      await connection.run('DETACH copy');
      return Number(size?.used ?? 0);
    };
    const empty = await bytesOf('CREATE TABLE copy.empty (x INTEGER)');
    const bytes = new Map<string, number>();
    for (const { name } of tables)
      bytes.set(
        String(name),
        (await bytesOf(`CREATE TABLE copy."${name}" AS FROM source."${name}"`)) - empty,
      );
    await rm(copy, { force: true });
    return bytes;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
