/**
 * A SQL model: one `.sql` file of `sql/models`, whose leading comment says what it is. The lines
 * `-- key: value` of that comment configure it; the other comment lines describe it.
 *
 * @example
 * -- Per listing: when it was first seen, when it left, and whether it came back.
 * -- materialized: incremental
 * -- depends_on: int_listing_spells
 * -- unique_key: app_id, listing_id
 * -- replace_from: first_seen_at
 * -- export: date(first_seen_at)
 * -- test: unique(app_id, listing_id)
 * -- test: not_null(first_seen_at)
 * SELECT …
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** How a model is kept in the warehouse. */
export type Materialization = 'view' | 'table' | 'incremental';

/** A model as its file declares it. */
export interface Model {
  /** The file name without `.sql`; also the name of its view or table. */
  name: string;
  /** The prose of the leading comment. */
  description: string;
  materialized: Materialization;
  /** Models this one reads (landing tables are not listed). */
  dependsOn: string[];
  /** Columns identifying a row; an incremental build replaces the rows whose key it rebuilds. */
  uniqueKey: string[];
  /**
   * A column of the unique key (a time, usually) from which an incremental build replaces each
   * group it rebuilds: the rows of the rest of the key whose value is at or after the group's
   * earliest in the increment are deleted first, so a row the new data no longer implies goes too.
   * Null: only the rows with the same key are replaced.
   */
  replaceFrom: string | null;
  /**
   * A SQL condition on an increment's rows (`-- delete_when: last_minute IS NULL`): a row for which
   * it holds replaces rows as any row of the increment does (by its key, or from its `replace_from`
   * value), and is then left out rather than inserted. How an increment says that a group's rows
   * from a point on are gone when the new data implies no row of the group to replace them by.
   * Null: every row of the increment is inserted.
   */
  deleteWhen: string | null;
  /**
   * How the model is exported to parquet: the SQL expression of the DATE a row belongs to, or
   * `snapshot` for a current-state model (its rows belong to the day of the export). Null: not exported.
   */
  exportDate: string | null;
  /** The `test:` lines, as written. */
  tests: string[];
  /** The SQL after the leading comment (a template: see `renderModelSql`). */
  sql: string;
  /** Hash of the whole file: a changed model is rebuilt in full. */
  hash: string;
  /**
   * How many parts a full build runs in, one statement each (see `renderModelSql`'s `{{ chunk }}`):
   * a model whose rows fall apart by a key (a listing) builds within less memory. @default 1
   */
  chunks: number;
  /**
   * A full build by day instead (`-- chunk_days: relation.column`): one statement per day from the
   * earliest to the latest `column` of `relation`, with `{{ chunk_from }}` and `{{ chunk_to }}`
   * its bounds (see `renderModelSql`): a model whose rows fall apart by a time the raw rows carry
   * builds within the memory of a day, however long the history. Null: not by day.
   */
  chunkDays: { relation: string; column: string } | null;
  /**
   * A full build by ranges of a column's values instead (`-- chunk_by: relation.column per n`): one
   * statement per range that holds about n rows of `relation`, the bounds quantiles of a sample of
   * the column, with `{{ in_chunk(column) }}` keeping the range's rows (see `renderModelSql`): the
   * parts grow in number with the history and each holds about n rows, however long it is; and a
   * range of a column, unlike a range of its hash, reaches both sides of a join on that column.
   * Rows whose value is null are in no part of a build in several: for a column never null. Null:
   * not by values.
   */
  chunkBy: { relation: string; column: string; rows: number } | null;
}

const KEYS = [
  'materialized',
  'depends_on',
  'unique_key',
  'replace_from',
  'delete_when',
  'export',
  'chunks',
  'chunk_days',
  'chunk_by',
  'test',
] as const;

/** Reads every `.sql` file of `dir` as a model, sorted by name. */
export function loadModels(dir: string): Model[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => parseModel(basename(f, '.sql'), readFileSync(join(dir, f), 'utf8')));
}

/** Parses one model file; throws naming the model and the line when its header is wrong. */
export function parseModel(name: string, text: string): Model {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`model ${name}: names are lower_snake_case`);
  const lines = text.split('\n');
  const description: string[] = [];
  const config: Record<string, string[]> = {};
  let body = 0;
  for (; body < lines.length; body++) {
    const line = lines[body] ?? '';
    if (!line.startsWith('--')) break;
    const content = line.replace(/^--\s?/, '');
    const match = /^([a-z_]+):\s*(.*)$/.exec(content);
    if (match && (KEYS as readonly string[]).includes(match[1] ?? '')) {
      const key = match[1] as string;
      config[key] = [...(config[key] ?? []), (match[2] ?? '').trim()];
    } else description.push(content);
  }
  const materialized = single(name, config, 'materialized') ?? 'view';
  if (!['view', 'table', 'incremental'].includes(materialized))
    throw new Error(`model ${name}: materialized is view, table or incremental, not ${materialized}`);
  const uniqueKey = commaList(single(name, config, 'unique_key'));
  if (materialized === 'incremental' && uniqueKey.length === 0)
    throw new Error(`model ${name}: an incremental model needs a unique_key`);
  const replaceFrom = single(name, config, 'replace_from') ?? null;
  if (replaceFrom !== null && !uniqueKey.includes(replaceFrom))
    throw new Error(`model ${name}: replace_from ${replaceFrom} is not a column of the unique_key`);
  const deleteWhen = single(name, config, 'delete_when') ?? null;
  if (deleteWhen !== null && materialized !== 'incremental')
    throw new Error(`model ${name}: delete_when is for an incremental model`);
  const chunks = Number(single(name, config, 'chunks') ?? 1);
  if (!Number.isInteger(chunks) || chunks < 1 || chunks > 1024)
    throw new Error(`model ${name}: chunks is a whole number from 1 to 1024`);
  if (chunks > 1 && materialized === 'view') throw new Error(`model ${name}: a view is not built in chunks`);
  const chunkDays = parseChunkDays(name, single(name, config, 'chunk_days'), materialized, chunks);
  const chunkBy = parseChunkBy(name, single(name, config, 'chunk_by'), materialized, chunks, chunkDays);
  const sql = lines.slice(body).join('\n').trim().replace(/;\s*$/, '');
  if (!sql) throw new Error(`model ${name}: no SQL after the header`);
  return {
    name,
    description: description.join(' ').replace(/\s+/g, ' ').trim(),
    materialized: materialized as Materialization,
    dependsOn: commaList(single(name, config, 'depends_on')),
    uniqueKey,
    replaceFrom,
    deleteWhen,
    exportDate: single(name, config, 'export') ?? null,
    tests: config.test ?? [],
    sql,
    hash: createHash('sha256').update(text).digest('hex').slice(0, 16),
    chunks,
    chunkDays,
    chunkBy,
  };
}

/** `relation.column` in a header line, each name captured. */
const RELATION_COLUMN = '([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)';

/** The `chunk_days:` line: `relation.column`, for a table or incremental model not also in chunks. */
function parseChunkDays(
  name: string,
  value: string | undefined,
  materialized: string,
  chunks: number,
): Model['chunkDays'] {
  if (value === undefined) return null;
  const match = new RegExp(`^${RELATION_COLUMN}$`).exec(value);
  if (!match) throw new Error(`model ${name}: chunk_days is relation.column, not ${value}`);
  if (materialized === 'view') throw new Error(`model ${name}: a view is not built by day`);
  if (chunks > 1) throw new Error(`model ${name}: a model is built in chunks or by day, not both`);
  return { relation: match[1] as string, column: match[2] as string };
}

/** The `chunk_by:` line: `relation.column per n`, for a table or incremental model built no other way in parts. */
function parseChunkBy(
  name: string,
  value: string | undefined,
  materialized: string,
  chunks: number,
  chunkDays: Model['chunkDays'],
): Model['chunkBy'] {
  if (value === undefined) return null;
  const match = new RegExp(`^${RELATION_COLUMN} per ([1-9][0-9]*)$`).exec(value);
  if (!match) throw new Error(`model ${name}: chunk_by is relation.column per rows, not ${value}`);
  if (materialized === 'view') throw new Error(`model ${name}: a view is not built by ranges`);
  if (chunks > 1 || chunkDays !== null)
    throw new Error(`model ${name}: a model is built in chunks, by day or by ranges, one of them`);
  return { relation: match[1] as string, column: match[2] as string, rows: Number(match[3]) };
}

function single(name: string, config: Record<string, string[]>, key: string): string | undefined {
  const values = config[key];
  if (values && values.length > 1) throw new Error(`model ${name}: ${key} is given more than once`);
  return values?.[0];
}

function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Orders `models` so each comes after what it depends on. Throws on an unknown dependency, a
 * cycle, or SQL that reads another model it does not declare (the declared graph must be the real one).
 */
export function orderModels(models: readonly Model[]): Model[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  for (const model of models) {
    for (const dep of model.dependsOn) {
      if (!byName.has(dep)) throw new Error(`model ${model.name} depends on ${dep}, which is not a model`);
    }
    for (const other of models) {
      if (other !== model && readsRelation(model.sql, other.name) && !model.dependsOn.includes(other.name))
        throw new Error(`model ${model.name} reads ${other.name} but does not list it in depends_on`);
    }
  }
  const ordered: Model[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (model: Model, path: string[]) => {
    if (state.get(model.name) === 'done') return;
    if (state.get(model.name) === 'visiting')
      throw new Error(`models depend on each other in a cycle: ${[...path, model.name].join(' → ')}`);
    state.set(model.name, 'visiting');
    for (const dep of model.dependsOn) visit(byName.get(dep) as Model, [...path, model.name]);
    state.set(model.name, 'done');
    ordered.push(model);
  };
  for (const model of models) visit(model, []);
  return ordered;
}

/** `models` narrowed to `names` and, with `withUpstream`, everything they depend on (in order). */
export function selectModels(
  ordered: readonly Model[],
  names: readonly string[],
  withUpstream: boolean,
): Model[] {
  const byName = new Map(ordered.map((m) => [m.name, m]));
  for (const name of names) if (!byName.has(name)) throw new Error(`no model is named ${name}`);
  const wanted = new Set(names);
  if (withUpstream) {
    const add = (name: string) => {
      wanted.add(name);
      for (const dep of byName.get(name)?.dependsOn ?? []) add(dep);
    };
    for (const name of names) add(name);
  }
  return ordered.filter((m) => wanted.has(m.name));
}

/** Whether `sql` names the relation `name` (outside `--` comments). */
export function readsRelation(sql: string, name: string): boolean {
  return new RegExp(`(?<![\\w.])${name}(?!\\w)`, 'i').test(sql.replace(/--.*$/gm, ''));
}
