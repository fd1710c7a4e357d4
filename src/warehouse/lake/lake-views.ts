/**
 * The views that read a relation whole, its rows still in the file and its lake files together,
 * under the relation's own name: a landing table's (its rows landed in `<table>__hot`, what the
 * typed views read) and a moved model's (its rows built in `<model>__hot`). The file's rows are read from the bound on,
 * so a row copied to the lake but not yet deleted here is read once; the files are those of the
 * last move the file completed (`lake_files`), so files a move is writing are not read yet.
 */
import { filesBySchema } from './file-schemas.js';
import { hotTableOf, type LakeRelation } from './relations.js';
import type { SqlRunner } from './sql-runner.js';

/** A column of a table, as DuckDB names and types it. */
export interface Column {
  name: string;
  type: string;
}

/** The columns of `table` (of the main schema), in order. */
export async function columnsOf(sql: SqlRunner, table: string): Promise<Column[]> {
  return sql.all<Column>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = 'main' AND table_name = $table ORDER BY ordinal_position`,
    { table },
  );
}

/** `name` quoted as an SQL identifier. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `text` as an SQL string literal. */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Parquet has no 128-bit integers: such a column is written as its decimal text and cast back when read. */
export function parquetColumn(column: Column): string {
  return /HUGEINT/.test(column.type)
    ? `CAST(${ident(column.name)} AS VARCHAR) AS ${ident(column.name)}`
    : ident(column.name);
}

/** Whether `table` is a table of the main schema now. */
export async function isTable(sql: SqlRunner, table: string): Promise<boolean> {
  const rows = await sql.all(
    "SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = $table AND table_type = 'BASE TABLE'",
    { table },
  );
  return rows.length > 0;
}

/** The table holding a relation's rows that are still in the file (null: a model not built yet). */
export async function hotTable(sql: SqlRunner, relation: LakeRelation): Promise<string | null> {
  if (await isTable(sql, hotTableOf(relation.name))) return hotTableOf(relation.name);
  return (await isTable(sql, relation.name)) ? relation.name : null;
}

/** The query reading `relation` whole: the rows of `hot` from `bound` on, and `files`, typed as `hot`'s columns. */
async function wholeSql(
  sql: SqlRunner,
  relation: LakeRelation,
  hot: string,
  bound: string | undefined,
  files: readonly string[],
): Promise<string> {
  const columns = await columnsOf(sql, hot);
  const time = ident(relation.time);
  const recent =
    bound === undefined ? '' : ` WHERE ${time} >= TIMESTAMP ${literal(bound)} OR ${time} IS NULL`;
  const inFile = `SELECT ${columns.map((c) => ident(c.name)).join(', ')} FROM main.${ident(hot)}${recent}`;
  if (files.length === 0) return inFile;
  // One read per set of columns the files have (one but for a model given a column since some were
  // written): `union_by_name` would open every file to bind their union at each read of the view.
  const reads = (await filesBySchema(sql, files)).map((group) => {
    // A column the files lack reads as null.
    const typed = columns.map((c) =>
      group.columns.has(c.name)
        ? `CAST(${ident(c.name)} AS ${c.type}) AS ${ident(c.name)}`
        : `CAST(NULL AS ${c.type}) AS ${ident(c.name)}`,
    );
    // Every row of the files is before the bound: said here, a read of the hot days alone (a filter
    // from the bound on) is planned without opening a file (1.4 ms instead of 5.4 for 83 day files
    // of int_minask_minutes, python duckdb, 1 thread).
    const before = bound === undefined ? '' : ` WHERE ${time} < TIMESTAMP ${literal(bound)}`;
    return `SELECT ${typed.join(', ')} FROM read_parquet([${group.files.map(literal).join(', ')}])${before}`;
  });
  return [inFile, ...reads].join('\nUNION ALL\n');
}

/**
 * Each relation's bound and absolute files, as the file's last completed move left them, and the
 * models rebuilt in full whose new days wait to replace their files (`lake_rebuilds`).
 */
async function lakeState(
  sql: SqlRunner,
): Promise<{ bounds: Map<string, string>; files: Map<string, string[]>; rebuilt: Set<string> }> {
  if (!(await hasLake(sql))) return { bounds: new Map(), files: new Map(), rebuilt: new Set() };
  const bounds = await sql.all<{ relation: string; bound: string }>(
    'SELECT relation, CAST(lake_before AS VARCHAR) AS bound FROM lake_bounds',
  );
  const files = await sql.all<{ relation: string; file: string }>(
    'SELECT relation, file FROM lake_files ORDER BY relation, day, path',
  );
  const byRelation = new Map<string, string[]>();
  for (const f of files) byRelation.set(f.relation, [...(byRelation.get(f.relation) ?? []), f.file]);
  const rebuilt = (await isTable(sql, 'lake_rebuilds'))
    ? await sql.all<{ relation: string }>('SELECT relation FROM lake_rebuilds')
    : [];
  return {
    bounds: new Map(bounds.map((b) => [b.relation, b.bound])),
    files: byRelation,
    rebuilt: new Set(rebuilt.map((r) => r.relation)),
  };
}

/**
 * (Re)creates the view of `relation`'s name reading it whole over `<relation>__hot` and its files
 * (a model not moved yet keeps its table, as does a landing table of a file migrated up to an older
 * layout; a model rebuilt in full and not yet published reads its table alone).
 */
export async function createWholeView(sql: SqlRunner, relation: LakeRelation): Promise<void> {
  const hot = await hotTable(sql, relation);
  if (hot === null || hot === relation.name) return;
  if (!(await isTable(sql, hot))) return;
  const { bounds, files, rebuilt } = await lakeState(sql);
  // A model rebuilt in full holds every day in its table until the new days replace its files.
  const query = rebuilt.has(relation.name)
    ? await wholeSql(sql, relation, hot, undefined, [])
    : await wholeSql(sql, relation, hot, bounds.get(relation.name), files.get(relation.name) ?? []);
  await sql.run(`CREATE OR REPLACE VIEW main.${ident(relation.name)} AS ${query}`);
}

/**
 * (Re)creates the whole views of every relation of the lake (of those the file has: one migrated
 * up to an older layout has no lake, and its views read its tables alone), and drops the schema
 * `history` whose views read landing tables whole before their own names did.
 */
export async function createWholeViews(sql: SqlRunner, relations: readonly LakeRelation[]): Promise<void> {
  // Qualified by the file's catalog: a file named history.duckdb is a catalog of that name too.
  const [catalog] = await sql.all<{ name: string }>('SELECT current_database() AS name');
  await sql.run(`DROP SCHEMA IF EXISTS ${ident(catalog?.name ?? 'main')}.history CASCADE`);
  for (const relation of relations) await createWholeView(sql, relation);
}

/** Whether the file has the lake's tables (a file opened with older migrations has not). */
export async function hasLake(sql: SqlRunner): Promise<boolean> {
  return isTable(sql, 'lake_bounds');
}
