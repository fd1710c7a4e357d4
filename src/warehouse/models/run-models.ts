/**
 * Builds models in the warehouse, in dependency order, all in ONE transaction: every model of a
 * run reads the same committed landing data, analysts see the whole refresh or none of it, an
 * incremental model's watermark commits with the rows it covers, and the tests that compare a
 * model with landing data run in it too (see `test-runs.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from '../../shared/transaction.js';
import { connectionRunner, crashPoint, createWholeView, hotTableOf, markRebuilt } from '../lake/index.js';
import type { Model } from './model.js';
import { ModelFileError } from './model-file-error.js';
import { splitStatements } from './sql-statements.js';
import { recordBuildTests } from './test-runs.js';

/** How a run builds its models. */
export interface RunModelsOptions {
  /** Rebuild incremental models from scratch. @default false */
  fullRefresh?: boolean;
  /** Called after each model is built. */
  onModel?: (result: ModelRunResult) => void;
  /** Clock of `model_runs`, epoch ms. @default Date.now */
  clock?: () => number;
  /** Interrupts the build when it aborts: the run fails and no model changes. */
  signal?: AbortSignal;
  /**
   * DuckDB's memory limit while an incremental model builds in full (its first build, a changed
   * SQL, a full refresh), and the one set back after it. @default the limit in force throughout
   */
  fullBuildMemory?: { build: string; steady: string };
}

/** What building one model did. */
export interface ModelRunResult {
  model: string;
  materialized: Model['materialized'];
  mode: 'view' | 'full' | 'incremental';
  /** Rows written (new or replaced rows when incremental); null for a view. */
  rows: number | null;
  durationMs: number;
}

/** What a run did. */
export interface ModelRunSummary {
  runId: string;
  models: ModelRunResult[];
  durationMs: number;
}

/** Builds `ordered` (already in dependency order) on `connection`, committing all of it or nothing. */
export async function runModels(
  connection: DuckDBConnection,
  ordered: readonly Model[],
  options: RunModelsOptions = {},
): Promise<ModelRunSummary> {
  const clock = options.clock ?? Date.now;
  const runId = randomUUID();
  const started = performance.now();
  const models: ModelRunResult[] = [];
  const interrupt = () => connection.interrupt();
  options.signal?.addEventListener('abort', interrupt, { once: true });
  try {
    options.signal?.throwIfAborted();
    await inTransaction(connection, async () => {
      // Read inside the transaction: the newest load this run's snapshot of the landing tables holds.
      const watermark = await newestLoad(connection);
      for (const model of ordered) {
        // An interrupt that came between two statements found nothing running: honour it here.
        options.signal?.throwIfAborted();
        const begun = performance.now();
        const startedAt = new Date(clock()).toISOString().replace('Z', '');
        const { mode, rows } = await buildModel(connection, model, {
          watermark,
          startedAt,
          fullRefresh: options.fullRefresh ?? false,
          runId,
          memory: options.fullBuildMemory,
        });
        const result = {
          model: model.name,
          materialized: model.materialized,
          mode,
          rows,
          durationMs: performance.now() - begun,
        };
        await connection.run(
          'INSERT INTO model_runs VALUES ($run, $model, $materialized, $mode, $rows, $at, $ms)',
          {
            run: runId,
            model: model.name,
            materialized: model.materialized,
            mode,
            rows,
            at: startedAt,
            ms: result.durationMs,
          },
        );
        models.push(result);
        options.onModel?.(result);
      }
      await recordBuildTests(connection, ordered, runId, watermark);
    });
  } catch (cause) {
    const steady = options.fullBuildMemory?.steady;
    if (steady) await connection.run(`SET memory_limit = '${steady}'`);
    const failed = ordered[models.length]?.name ?? 'the run';
    throw new Error(`building model ${failed} failed, no model changed: ${(cause as Error).message}`, {
      cause,
    });
  } finally {
    options.signal?.removeEventListener('abort', interrupt);
  }
  return { runId, models, durationMs: performance.now() - started };
}

/**
 * The newest `loads.started_at` (1970 when none), as the watermark of a run. No load is ever
 * removed, so it is at or after the newest watermark built: DuckDB skips the older loads by their
 * row groups' bounds (1.2 against 11 ms over a month of loads, 4.5M rows) and reads them all only
 * when no load is that new.
 */
async function newestLoad(connection: DuckDBConnection): Promise<string> {
  const since = async (bound: string) => {
    const reader = await connection.runAndReadAll(
      `SELECT CAST(max(started_at) AS VARCHAR) FROM loads WHERE started_at >= ${bound}`,
    );
    return (reader.getRows()[0]?.[0] ?? null) as string | null;
  };
  return (
    (await since('(SELECT max(watermark) FROM model_state)')) ??
    (await since("TIMESTAMP '-infinity'")) ??
    '1970-01-01 00:00:00'
  );
}

/** What a run gives each model's build: its watermark, its id, and when this build began (`model_runs`' clock). */
interface BuildContext {
  watermark: string;
  startedAt: string;
  fullRefresh: boolean;
  runId: string;
  memory: RunModelsOptions['fullBuildMemory'];
}

async function buildModel(
  connection: DuckDBConnection,
  model: Model,
  { watermark, startedAt, fullRefresh, runId, memory }: BuildContext,
): Promise<{ mode: ModelRunResult['mode']; rows: number | null }> {
  if (model.materialized === 'view') {
    // A model that changed from table to view leaves a table to drop first (and the other way round).
    if ((await relationKind(connection, model.name)) === 'table')
      await connection.run(`DROP TABLE ${model.name}`);
    await connection.run(`CREATE OR REPLACE VIEW ${model.name} AS ${renderModelSql(model, null, watermark)}`);
    return { mode: 'view', rows: null };
  }
  // A model whose old days moved to the lake builds in `<name>__hot`, its name the view over that and the lake.
  const moved = (await relationKind(connection, hotTableOf(model.name))) === 'table';
  if (moved && model.lake === null)
    throw new ModelFileError(
      model.name,
      model.file,
      `its old days are in the lake: keep its lake: line (the column dating its rows) to build it`,
    );
  const target = moved ? { ...model, name: hotTableOf(model.name) } : model;
  const existing = await relationKind(connection, target.name);
  const state = await connection.runAndReadAll(
    'SELECT CAST(watermark AS VARCHAR) AS watermark, sql_hash FROM model_state WHERE model = $model',
    { model: model.name },
  );
  const [previous] = state.getRowObjectsJS() as { watermark: string; sql_hash: string }[];
  const incremental =
    model.materialized === 'incremental' &&
    !fullRefresh &&
    existing === 'table' &&
    previous?.sql_hash === model.hash &&
    !(await upstreamRebuilt(connection, model));
  let rows: number;
  if (incremental) rows = await mergeIncrement(connection, target, previous.watermark, watermark);
  else {
    if (existing === 'view') await connection.run(`DROP VIEW ${target.name}`);
    // A table rebuilt each run is small; an incremental model built whole holds the history.
    const limits = model.materialized === 'incremental' ? memory : undefined;
    if (limits) await connection.run(`SET memory_limit = '${limits.build}'`);
    let built = false;
    try {
      // A model built in parts: the first one creates the table, the others add their rows.
      const parts = await fullBuildParts(connection, model);
      for (const [index, part] of parts.entries()) {
        const sql = await runStatementsBefore(connection, renderModelSql(target, null, watermark, part));
        await connection.run(
          index === 0
            ? `CREATE OR REPLACE TABLE ${target.name} AS ${sql}`
            : `INSERT INTO ${target.name} SELECT * FROM (${sql})`,
        );
      }
      built = true;
    } finally {
      // A failed build left the transaction aborted, which refuses a SET (and its error would hide
      // the build's): runModels sets the limit back after the rollback.
      if (limits && built) await connection.run(`SET memory_limit = '${limits.steady}'`);
    }
    rows = Number(await scalar(connection, `SELECT count(*) FROM ${target.name}`));
  }
  if (moved) {
    const sql = connectionRunner(connection);
    // A full build wrote the lake's days again: its view reads them from the table until the
    // warehouse publishes them as the model's new files (lake/rebuild.ts), after this run commits.
    if (!incremental) await markRebuilt(sql, model.name, runId);
    await createWholeView(sql, {
      name: model.name,
      kind: 'model',
      time: model.lake as string,
      orderBy: model.orderBy,
    });
    if (!incremental) crashPoint('building');
  }
  await connection.run(
    // When it began this build, and its last one in full: what upstreamRebuilt asks of its readers.
    `INSERT INTO model_state (model, sql_hash, watermark, built_at, last_started_at, full_started_at)
     VALUES ($model, $hash, CAST($watermark AS TIMESTAMP), now()::TIMESTAMP, CAST($at AS TIMESTAMP),
             CASE WHEN $incremental THEN NULL ELSE CAST($at AS TIMESTAMP) END)
     ON CONFLICT (model) DO UPDATE SET sql_hash = excluded.sql_hash, watermark = excluded.watermark,
       built_at = excluded.built_at, last_started_at = excluded.last_started_at,
       full_started_at = coalesce(excluded.full_started_at, model_state.full_started_at)`,
    { model: model.name, hash: model.hash, watermark, at: startedAt, incremental },
  );
  return { mode: incremental ? 'incremental' : 'full', rows };
}

/**
 * What one statement of a full build covers: its place among the parts, and the condition
 * `{{ in_chunk(…) }}` keeps its rows by (see {@link inChunk}).
 */
export interface BuildPart {
  chunk: number;
  chunks: number;
  /** With `per day of …`, the SQL literals of the day's bounds (inclusive, exclusive). */
  day?: { from: string; to: string };
  /** With `per n rows of …`, the SQL literals bounding the range of values (inclusive, exclusive; null: open). */
  values?: { from: string | null; to: string | null };
}

/** A build in one statement: an increment, or a model not split. */
const WHOLE: BuildPart = { chunk: 0, chunks: 1 };

/** Every time: the bounds of a build by day in one part. */
const ALL_TIME = { from: "TIMESTAMP '-infinity'", to: "TIMESTAMP 'infinity'" };

/** The parts of a full build of `model`, as its `chunks:` line splits it. */
async function fullBuildParts(connection: DuckDBConnection, model: Model): Promise<BuildPart[]> {
  const chunks = model.chunks;
  switch (chunks.kind) {
    case 'whole':
      return [WHOLE];
    case 'hash':
      return Array.from({ length: chunks.parts }, (_, chunk) => ({ chunk, chunks: chunks.parts }));
    case 'days':
      return dayParts(connection, chunks);
    case 'ranges':
      return valueParts(connection, chunks);
  }
}

/**
 * One part per day from the earliest to the latest `column` of `relation` (the first day open
 * below and the last open above, so no row falls outside; one part of all time when empty).
 */
async function dayParts(
  connection: DuckDBConnection,
  { relation, column }: { relation: string; column: string },
): Promise<BuildPart[]> {
  const reader = await connection.runAndReadAll(
    `SELECT CAST(d AS VARCHAR) FROM (SELECT range AS d FROM range(
       (SELECT CAST(CAST(min(${column}) AS DATE) AS TIMESTAMP) FROM ${relation}),
       (SELECT CAST(CAST(max(${column}) AS DATE) AS TIMESTAMP) FROM ${relation}) + INTERVAL 1 DAY, INTERVAL 1 DAY)) ORDER BY d`,
  );
  const days = reader.getRows().map((row) => String(row[0]).slice(0, 10));
  if (days.length === 0) return [{ chunk: 0, chunks: 1, day: ALL_TIME }];
  const at = (day: string | undefined) => (day === undefined ? undefined : `TIMESTAMP '${day}'`);
  return days.map((day, i) => ({
    chunk: i,
    chunks: days.length,
    day: { from: i === 0 ? ALL_TIME.from : (at(day) as string), to: at(days[i + 1]) ?? ALL_TIME.to },
  }));
}

/** How many values of a column `per n rows of` samples for the bounds of its ranges: a bounded sort. */
const SAMPLED_VALUES = 100_000;

/**
 * The parts of a full build by ranges of `column`'s values: as many as `relation` holds `rows`
 * rows, bounded by quantiles of a sample of the column (the first range open below, the last open
 * above; quantiles that coincide make one bound).
 */
async function valueParts(
  connection: DuckDBConnection,
  { relation, column, rows }: { relation: string; column: string; rows: number },
): Promise<BuildPart[]> {
  const parts = Math.ceil(Number(await scalar(connection, `SELECT count(*) FROM ${relation}`)) / rows);
  if (parts <= 1) return [WHOLE];
  const fractions = Array.from({ length: parts - 1 }, (_, i) => (i + 1) / parts);
  const reader = await connection.runAndReadAll(
    `SELECT CAST(q AS VARCHAR) AS v, typeof(q) AS t FROM (
       SELECT DISTINCT unnest(quantile_disc(${column}, [${fractions.join(', ')}])) AS q
       FROM (SELECT ${column} FROM ${relation} WHERE ${column} IS NOT NULL USING SAMPLE reservoir(${SAMPLED_VALUES} ROWS) REPEATABLE (1))
     ) WHERE q IS NOT NULL ORDER BY q`,
  );
  const bounds = (reader.getRowObjectsJS() as { v: string; t: string }[]).map(({ v, t }) => sqlLiteral(v, t));
  return [null, ...bounds].map((from, i) => ({
    chunk: i,
    chunks: bounds.length + 1,
    values: { from, to: bounds[i] ?? null },
  }));
}

/**
 * Whether a model `model` reads was rebuilt in full after `model`'s own last build: its rows then
 * carry no sign of what changed (a changed SQL, a `--full-refresh --select` of it), so an
 * increment of `model` could miss them. Asked of `model_state` (a row a model), not of the log of
 * every build, whose scans grew with the daemon's life.
 */
async function upstreamRebuilt(connection: DuckDBConnection, model: Model): Promise<boolean> {
  if (model.dependsOn.length === 0) return false;
  // Model names are identifiers (checked when the models are loaded), safe to spell in the SQL.
  const reader = await connection.runAndReadAll(
    `SELECT count(*) FROM model_state d JOIN model_state m ON m.model = $model
     WHERE d.model IN (${model.dependsOn.map((d) => `'${d}'`).join(', ')}) AND d.full_started_at > m.last_started_at`,
    { model: model.name },
  );
  return Number(reader.getRows()[0]?.[0]) > 0;
}

/**
 * Builds the rows changed since `since` aside, then replaces the rows with the same unique key
 * (or, with `replace_from`, every row of each rebuilt group from its earliest rebuilt value on),
 * inserting the increment's rows but those `delete_when` marks.
 */
async function mergeIncrement(
  connection: DuckDBConnection,
  model: Model,
  since: string,
  watermark: string,
): Promise<number> {
  const increment = `__increment_${model.name}`;
  const query = await runStatementsBefore(connection, renderModelSql(model, since, watermark));
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${increment} AS ${query}`);
  const bounds = await keyBounds(connection, model, increment);
  await connection.run(
    replacedRows(model, increment, await earliestReplaced(connection, model, increment)) + bounds,
  );
  // Rows that only mark what they replace (`delete_when`) have done their part in the DELETE.
  const kept = model.deleteWhen === null ? '' : ` WHERE NOT coalesce(${model.deleteWhen}, false)`;
  const inserted = await connection.run(
    `INSERT INTO ${model.name} BY NAME SELECT * FROM ${increment}${kept}`,
  );
  await connection.run(`DROP TABLE ${increment}`);
  return inserted.rowsChanged;
}

/**
 * Runs the statements of a rendered model's `sql` before its query (a temp table, `SET VARIABLE`:
 * what the query then reads as a table or a constant), in the build's transaction; returns the query.
 */
async function runStatementsBefore(connection: DuckDBConnection, sql: string): Promise<string> {
  const statements = splitStatements(sql);
  for (const statement of statements.slice(0, -1)) await connection.run(statement);
  return statements.at(-1) ?? sql;
}

/**
 * The earliest `replace_from` value of the `increment` table as a SQL literal, or null (no
 * `replace_from`, or an empty increment): spelled as a constant in the DELETE, it lets DuckDB skip
 * the row groups of the model's table that hold only older rows instead of joining them all.
 */
async function earliestReplaced(
  connection: DuckDBConnection,
  model: Model,
  increment: string,
): Promise<string | null> {
  if (model.replaceFrom === null) return null;
  const reader = await connection.runAndReadAll(
    `SELECT CAST(min(${model.replaceFrom}) AS VARCHAR) AS v, typeof(min(${model.replaceFrom})) AS t FROM ${increment}`,
  );
  const [row] = reader.getRowObjectsJS() as { v: string | null; t: string }[];
  if (!row || row.v === null) return null;
  return sqlLiteral(row.v, row.t);
}

/** A value read as VARCHAR, spelled back as a constant of its DuckDB type. */
function sqlLiteral(value: string, type: string): string {
  return `CAST('${value.replaceAll("'", "''")}' AS ${type})`;
}

/**
 * The increment's range of each time column of the unique key, as constant conditions on the
 * model's table (` AND k BETWEEN lo AND hi`, or ''): a row the increment replaces has its key, so
 * it lies in that range, and DuckDB skips the row groups of the table outside it instead of
 * scanning every row to match keys (stg_price_lists: 7.7M rows at 30 days). A column with a null
 * in the increment is left unbounded (a null key matches a null).
 */
async function keyBounds(connection: DuckDBConnection, model: Model, increment: string): Promise<string> {
  if (model.replaceFrom !== null || model.uniqueKey.length === 0) return '';
  const reader = await connection.runAndReadAll(
    `SELECT ${model.uniqueKey
      .map(
        (k, i) =>
          `CAST(min(${k}) AS VARCHAR) AS lo${i}, CAST(max(${k}) AS VARCHAR) AS hi${i}, typeof(min(${k})) AS t${i}, count(*) FILTER (WHERE ${k} IS NULL) AS nulls${i}`,
      )
      .join(', ')} FROM ${increment}`,
  );
  const [row] = reader.getRowObjectsJS() as Record<string, string | bigint | null>[];
  if (!row) return '';
  return model.uniqueKey
    .map((k, i) => {
      const [lo, hi, type] = [row[`lo${i}`], row[`hi${i}`], String(row[`t${i}`])];
      if (typeof lo !== 'string' || typeof hi !== 'string' || Number(row[`nulls${i}`]) > 0) return '';
      if (!/^(TIMESTAMP|DATE)/.test(type)) return '';
      return ` AND ${model.name}.${k} BETWEEN ${sqlLiteral(lo, type)} AND ${sqlLiteral(hi, type)}`;
    })
    .join('');
}

/**
 * The DELETE of the rows of `model` that the rows of the `increment` table replace; `earliest`, the
 * increment's earliest `replace_from` value, bounds it (see {@link earliestReplaced}).
 */
function replacedRows(model: Model, increment: string, earliest: string | null): string {
  const same = (keys: string[]) =>
    keys.map((k) => `${model.name}.${k} IS NOT DISTINCT FROM i.${k}`).join(' AND ') || 'true';
  const from = model.replaceFrom;
  if (from === null)
    return `DELETE FROM ${model.name} USING ${increment} AS i WHERE ${same(model.uniqueKey)}`;
  const group = model.uniqueKey.filter((k) => k !== from);
  const firsts = `SELECT ${[...group, `min(${from}) AS __from`].join(', ')} FROM ${increment} GROUP BY ALL`;
  const bound = earliest === null ? '' : ` AND ${model.name}.${from} >= ${earliest}`;
  return `DELETE FROM ${model.name} USING (${firsts}) AS i WHERE ${same(group)} AND ${model.name}.${from} >= i.__from${bound}`;
}

/**
 * The model's SQL with its template filled in: `{{ this }}` is the model's own table,
 * `{{ since }}` the watermark of its previous build (a TIMESTAMP literal; 1970 in a full build),
 * `{{ watermark }}` the newest load this build reads (rows a build writes can carry it, so a model
 * downstream finds the rows built after its own last build with `built_watermark > {{ since }}`),
 * `{% if is_incremental %} … {% else %} … {% endif %}` keeps the first part in an incremental
 * build (`since` given) and the `else` part, if any, in a full one, and `{{ in_chunk(…) }}` keeps
 * the rows of the part of a full build the statement runs (`true` in a build of one part; see
 * {@link inChunk}).
 */
export function renderModelSql(
  model: Model,
  since: string | null,
  watermark: string,
  part: BuildPart = WHOLE,
): string {
  const blocks = /\{%\s*if\s+is_incremental\s*%\}([\s\S]*?)(?:\{%\s*else\s*%\}([\s\S]*?))?\{%\s*endif\s*%\}/g;
  const sql = model.sql
    .replace(blocks, (_, whenIncremental: string, otherwise?: string) =>
      since === null ? (otherwise ?? '') : whenIncremental,
    )
    .replace(/\{\{\s*this\s*\}\}/g, model.name)
    .replace(/\{\{\s*since\s*\}\}/g, `TIMESTAMP '${since ?? '1970-01-01 00:00:00'}'`)
    .replace(/\{\{\s*watermark\s*\}\}/g, `TIMESTAMP '${watermark}'`)
    .replace(/\{\{\s*in_chunk\(([^)}]+)\)\s*\}\}/g, (_, columns: string) => inChunk(columns.trim(), part));
  const leftover = /\{[{%][^}]*[}%]\}/.exec(sql);
  if (leftover) throw new Error(`model ${model.name}: unknown template ${leftover[0]}`);
  return sql;
}

/** The whole range of DuckDB's `hash`, a UBIGINT. */
const HASH_RANGE = 2n ** 64n;

/**
 * The condition keeping `part`'s rows, as SQL: `true` in a build of one part; by day, `columns`
 * (one column) within the day's bounds; by ranges, within the range of values; with `chunks: n`,
 * the hash of `columns` within the part's share of the hash range. DuckDB pushes each of these
 * comparisons with constants through the typed views to the raw table's scan, which it does not
 * for an arithmetic of a hash (a modulo) and which would then type every row for each part.
 */
function inChunk(columns: string, part: BuildPart): string {
  if (part.day) return `(${columns} >= ${part.day.from} AND ${columns} < ${part.day.to})`;
  if (part.chunks === 1) return 'true';
  if (part.values) {
    const { from, to } = part.values;
    return `(${[from && `${columns} >= ${from}`, to && `${columns} < ${to}`].filter(Boolean).join(' AND ')})`;
  }
  const bound = (chunk: number) => (HASH_RANGE * BigInt(chunk)) / BigInt(part.chunks);
  const last = bound(part.chunk + 1) - 1n;
  return `hash(${columns}) BETWEEN CAST('${bound(part.chunk)}' AS UBIGINT) AND CAST('${last}' AS UBIGINT)`;
}

/** Whether `name` is a table or a view of the main schema now, or neither. */
async function relationKind(connection: DuckDBConnection, name: string): Promise<'table' | 'view' | null> {
  const reader = await connection.runAndReadAll(
    "SELECT table_type FROM information_schema.tables WHERE table_name = $name AND table_schema = 'main'",
    { name },
  );
  const type = reader.getRows()[0]?.[0];
  return type === undefined ? null : type === 'VIEW' ? 'view' : 'table';
}

async function scalar(connection: DuckDBConnection, sql: string): Promise<string> {
  const reader = await connection.runAndReadAll(sql);
  return String(reader.getRows()[0]?.[0]);
}
