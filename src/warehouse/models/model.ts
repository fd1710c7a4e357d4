/**
 * A SQL model: one `.sql` file of a models folder, whose leading comment says what it is. The
 * lines `-- key: value` of that comment configure it (the header language, documented in
 * `src/warehouse/README.md`); the other comment lines describe it.
 *
 * @example
 * -- Per listing: when it was first seen, when it left, and whether it came back.
 * -- materialized: incremental
 * -- depends_on: int_listing_spells
 * -- unique_key: app_id, listing_id
 * -- chunks: 4
 * -- export: CAST(first_seen_at AS DATE)
 * -- test: unique(app_id, listing_id)
 * SELECT … WHERE {{ in_chunk(app_id, listing_id) }}
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ModelFileError } from './model-file-error.js';
import { splitStatements } from './sql-statements.js';

/** How a model is kept in the warehouse. */
export type Materialization = 'view' | 'table' | 'incremental';

/**
 * How a full build is split into statements (`-- chunks:`), each keeping its rows with
 * `{{ in_chunk(…) }}` (see `renderModelSql`), so that it holds a part of the history at a time:
 * - `whole`: one statement (no `chunks:` line);
 * - `hash` (`-- chunks: n`): n statements, each the rows whose hash of the macro's columns falls in
 *   its share of the hash range, for a model whose rows fall apart by a key;
 * - `days` (`-- chunks: per day of relation.column`): a statement per day from the earliest to the
 *   latest `column` of `relation` (the first open below, the last open above), the macro's column
 *   compared with the day's bounds: a comparison on a raw column reaches the raw table before any
 *   text is parsed, so the build holds a day's rows however long the history;
 * - `ranges` (`-- chunks: per n rows of relation.column`): as many statements as `relation` holds
 *   n rows, each a range of `column`'s values (bounds: quantiles of a sample), the macro's column
 *   compared with them; a range of a column, unlike a range of its hash, reaches both sides of a
 *   join on it. A row whose value is null is in no range: for a column never null.
 */
export type ModelChunks =
  | { kind: 'whole' }
  | { kind: 'hash'; parts: number }
  | { kind: 'days'; relation: string; column: string }
  | { kind: 'ranges'; relation: string; column: string; rows: number };

/** A model as its file declares it. */
export interface Model {
  /** The file name without `.sql`; also the name of its view or table. */
  name: string;
  /** The file it was read from (its name alone when parsed from text). */
  file: string;
  /** The prose of the leading comment. */
  description: string;
  materialized: Materialization;
  /** Models this one reads (landing tables are not listed); checked against its SQL by {@link orderModels}. */
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
  /**
   * The column (a TIMESTAMP or DATE) whose UTC day dates a row in the lake (`-- lake: column`): the
   * model's whole days older than the hot window move there. Null: its rows stay in the file.
   */
  lake: string | null;
  /**
   * The columns the lake's day files of the model are sorted by (`-- order_by: app_id,
   * market_hash_name`), so that a read of the history filtered on the leading columns skips the row
   * groups whose min/max statistics rule them out instead of reading every group's rows. The file
   * keeps the order its SQL builds in (recent days, read by time); a model without a `lake:` line
   * has its table in the file rewritten in that order at each lake move instead. Empty: as stored.
   */
  orderBy: string[];
  /** The `test:` lines, as written. */
  tests: string[];
  /** The SQL after the leading comment (a template: see `renderModelSql`). */
  sql: string;
  /** Hash of the whole file: a changed model is rebuilt in full. */
  hash: string;
  /** How a full build is split. @default { kind: 'whole' } */
  chunks: ModelChunks;
}

const KEYS = [
  'materialized',
  'depends_on',
  'unique_key',
  'replace_from',
  'delete_when',
  'export',
  'lake',
  'order_by',
  'chunks',
  'test',
] as const;

/** A name of the warehouse: lower_snake_case. */
const NAME = '[a-z_][a-z0-9_]*';

/** Reads every `.sql` file of `dir` as a model, sorted by name. */
export function loadModels(dir: string): Model[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => parseModel(basename(f, '.sql'), readFileSync(join(dir, f), 'utf8'), join(dir, f)));
}

/**
 * The `lake:` and `order_by:` lines of every model of `dir` (null and empty without them), read
 * from the headers alone: what moves to the lake, and how its files are sorted, is known when the
 * warehouse opens, even while a model of the folder has an error for its build to report. A folder
 * that does not exist has none.
 */
export function readLakeLines(dir: string): { name: string; lake: string | null; orderBy: string[] }[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.sql'));
  } catch {
    return [];
  }
  return files.sort().map((f) => {
    const header = readFileSync(join(dir, f), 'utf8').split('\n');
    const end = header.findIndex((line) => !line.startsWith('--'));
    const lines = end === -1 ? header : header.slice(0, end);
    const value = (key: string) =>
      lines.map((line) => new RegExp(`^--\\s?${key}:\\s*(.+?)\\s*$`).exec(line)?.[1]).find(Boolean);
    const lake = value('lake');
    return { name: basename(f, '.sql'), lake: lake ?? null, orderBy: commaList(value('order_by')) };
  });
}

/** Parses one model file; throws a {@link ModelFileError} naming the model, the file and the line when its header is wrong. */
export function parseModel(name: string, text: string, file = `${name}.sql`): Model {
  const refuse = (why: string) => new ModelFileError(name, file, why);
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw refuse('names are lower_snake_case');
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
  const single = (key: string): string | undefined => {
    const values = config[key];
    if (values && values.length > 1) throw refuse(`${key} is given more than once`);
    return values?.[0];
  };
  const materialized = single('materialized') ?? 'view';
  if (!['view', 'table', 'incremental'].includes(materialized))
    throw refuse(`materialized is view, table or incremental, not ${materialized}`);
  const uniqueKey = commaList(single('unique_key'));
  if (materialized === 'incremental' && uniqueKey.length === 0)
    throw refuse('an incremental model needs a unique_key');
  const replaceFrom = single('replace_from') ?? null;
  if (replaceFrom !== null && !uniqueKey.includes(replaceFrom))
    throw refuse(`replace_from ${replaceFrom} is not a column of the unique_key`);
  const chunks = parseChunks(single('chunks'), refuse);
  if (chunks.kind !== 'whole' && materialized === 'view') throw refuse('a view is not built in chunks');
  const lake = single('lake') ?? null;
  if (lake !== null && !new RegExp(`^${NAME}$`).test(lake))
    throw refuse(`lake is the column dating a row, not ${lake}`);
  if (lake !== null && materialized !== 'incremental')
    throw refuse('only an incremental model moves to the lake (a table is rebuilt whole each run)');
  const orderBy = commaList(single('order_by'));
  const badColumn = orderBy.find((column) => !new RegExp(`^${NAME}$`).test(column));
  if (badColumn !== undefined) throw refuse(`order_by lists columns, not ${badColumn}`);
  if (orderBy.length > 0 && materialized !== 'incremental')
    throw refuse('order_by is for an incremental model (a table is rebuilt whole each run: sort its SQL)');
  const deleteWhen = single('delete_when') ?? null;
  if (deleteWhen !== null && materialized !== 'incremental')
    throw refuse('delete_when is for an incremental model');
  const sql = lines.slice(body).join('\n').trim().replace(/;\s*$/, '');
  if (!sql) throw refuse('no SQL after the header');
  if (materialized === 'view' && splitStatements(sql).length > 1)
    throw refuse('a view is one query: statements before it need a table or an incremental model');
  return {
    name,
    file,
    description: description.join(' ').replace(/\s+/g, ' ').trim(),
    materialized: materialized as Materialization,
    dependsOn: commaList(single('depends_on')),
    uniqueKey,
    replaceFrom,
    deleteWhen,
    exportDate: single('export') ?? null,
    lake,
    orderBy,
    tests: config.test ?? [],
    sql,
    hash: createHash('sha256').update(text).digest('hex').slice(0, 16),
    chunks,
  };
}

/** The `chunks:` line: `n`, `per day of relation.column` or `per n rows of relation.column`. */
function parseChunks(value: string | undefined, refuse: (why: string) => Error): ModelChunks {
  if (value === undefined) return { kind: 'whole' };
  if (/^[0-9]+$/.test(value)) {
    const parts = Number(value);
    if (parts < 1 || parts > 1024) throw refuse(`chunks is a whole number from 1 to 1024, not ${value}`);
    return parts === 1 ? { kind: 'whole' } : { kind: 'hash', parts };
  }
  const days = new RegExp(`^per day of (${NAME})\\.(${NAME})$`).exec(value);
  if (days) return { kind: 'days', relation: days[1] as string, column: days[2] as string };
  const ranges = new RegExp(`^per ([1-9][0-9]*) rows of (${NAME})\\.(${NAME})$`).exec(value);
  if (ranges)
    return {
      kind: 'ranges',
      relation: ranges[2] as string,
      column: ranges[3] as string,
      rows: Number(ranges[1]),
    };
  throw refuse(`chunks is n, per day of relation.column, or per n rows of relation.column, not ${value}`);
}

function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Orders `models` so each comes after what it depends on. Throws a {@link ModelFileError} when a
 * model's `depends_on` is not what its SQL reads: a model it names that is not one of `models`, a
 * model its SQL (or its `chunks:` line) reads that it does not declare, or one it declares that it
 * does not read; and an error on a cycle.
 */
export function orderModels(models: readonly Model[]): Model[] {
  const byName = new Map(models.map((m) => [m.name, m]));
  for (const model of models) {
    const refuse = (why: string) => new ModelFileError(model.name, model.file, why);
    for (const dep of model.dependsOn) {
      if (!byName.has(dep))
        throw refuse(
          `depends_on names ${dep}, which is not a model of the folder (landing tables are not listed)`,
        );
    }
    const reads = modelsRead(model, models);
    for (const read of reads) {
      if (!model.dependsOn.includes(read))
        throw refuse(`reads the model ${read} but does not declare it: add ${read} to its depends_on line`);
    }
    for (const dep of model.dependsOn) {
      if (!reads.includes(dep))
        throw refuse(
          `declares ${dep} in depends_on but its SQL does not read it: remove ${dep} from the line`,
        );
    }
  }
  const ordered: Model[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (model: Model, path: string[]) => {
    if (state.get(model.name) === 'done') return;
    if (state.get(model.name) === 'visiting')
      throw new ModelFileError(
        model.name,
        model.file,
        `models depend on each other in a cycle: ${[...path, model.name].join(' → ')}`,
      );
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

/** The other models of `models` that `model` reads: named in its SQL, or the relation of its `chunks:` line. */
function modelsRead(model: Model, models: readonly Model[]): string[] {
  const chunked = 'relation' in model.chunks ? model.chunks.relation : null;
  return models
    .filter((other) => other !== model && (other.name === chunked || readsRelation(model.sql, other.name)))
    .map((other) => other.name);
}

/** Whether `sql` names the relation `name` (outside `--` comments). */
export function readsRelation(sql: string, name: string): boolean {
  return new RegExp(`(?<![\\w.])${name}(?!\\w)`, 'i').test(sql.replace(/--.*$/gm, ''));
}
