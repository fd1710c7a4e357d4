/**
 * A relation's lake files grouped by their columns, so that each group is read by one
 * `read_parquet` without `union_by_name`: that option opens every file to bind the union of their
 * columns at each read of the view. A day file is written once and never changed (a listed name
 * never holds other content), so each file's columns are read once per process.
 */
import { statSync } from 'node:fs';
import type { SqlRunner } from './sql-runner.js';

/** Files of the same columns (names and types, in order). */
export interface SchemaGroup {
  columns: ReadonlySet<string>;
  files: string[];
}

/** Each file's columns as `name type` lines, by path, size and time of its last change. */
const known = new Map<string, string>();

/** `files` grouped by their columns, in the order of each group's first file. */
export async function filesBySchema(sql: SqlRunner, files: readonly string[]): Promise<SchemaGroup[]> {
  const groups = new Map<string, SchemaGroup>();
  for (const file of files) {
    const schema = await schemaOf(sql, file);
    let group = groups.get(schema);
    if (group === undefined) {
      const columns = new Set(schema.split('\n').map((line) => line.slice(0, line.indexOf(' '))));
      group = { columns, files: [] };
      groups.set(schema, group);
    }
    group.files.push(file);
  }
  return [...groups.values()];
}

async function schemaOf(sql: SqlRunner, file: string): Promise<string> {
  const stat = statSync(file, { throwIfNoEntry: false });
  const key = `${file}\n${stat?.size}\n${stat?.mtimeMs}`;
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  const columns = await sql.all<{ column_name: string; column_type: string }>(
    `DESCRIBE SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`,
  );
  const schema = columns.map((c) => `${c.column_name} ${c.column_type}`).join('\n');
  if (stat !== undefined) known.set(key, schema);
  return schema;
}
