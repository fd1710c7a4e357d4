/**
 * Exports SQL models to Hive-partitioned parquet, one file per model and day
 * (`<to>/<model>/date=YYYY-MM-DD/part-0.parquet`). Files are written aside, fsynced and renamed
 * into place by the parquet store's writer (as the lake's are), the manifest last, so a reader never
 * sees a partly written one; exporting a day again replaces its file. See README.md beside this.
 */

import { rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from '../../shared/transaction.js';
import { moveIntoPlace } from '../parquet-store/index.js';
import type { Warehouse } from '../warehouse.js';
import { WarehouseListeners } from '../warehouse-listeners.js';
import { copyDays, countDays, sqlString } from './copy-days.js';
import { listDayFolders, serializeExports, withAsideFolder } from './export-folder.js';
import {
  chooseModels,
  type DayRange,
  dayOf,
  inRange,
  type ModelPlan,
  PARTITION_COLUMN,
  parseRange,
  planModels,
} from './export-plan.js';
import {
  MANIFEST,
  type Manifest,
  type ManifestFile,
  type ManifestModel,
  readManifest,
  writeManifest,
} from './manifest.js';

/** Options of {@link exportModels}. */
export interface ExportOptions {
  /** The export folder. @default 'data/exports' */
  to?: string;
  /** Models to export. @default every model whose header has an `export:` line */
  models?: readonly string[];
  /** First day to export, YYYY-MM-DD (UTC). @default no bound */
  since?: string;
  /** Last day to export, YYYY-MM-DD (UTC). @default no bound */
  until?: string;
  /** Called each time a day's file of a model is written (aside; it moves into place with the model's other days). */
  onProgress?: (progress: ExportProgress) => void;
  /** Clock (epoch ms) of `exported_at` and of the day a snapshot model's rows belong to. @default the warehouse's clock */
  clock?: () => number;
}

/** How far the export of one model has got. */
export interface ExportProgress {
  model: string;
  /** The day just written, YYYY-MM-DD. */
  day: string;
  daysDone: number;
  daysTotal: number;
  /** Rows of the model written so far in this export. */
  rows: number;
}

/** What exporting one model did. */
export interface ModelExportSummary {
  model: string;
  /** Day files written. */
  files: number;
  /** Rows in those files. */
  rows: number;
  /** Day folders removed because their day, inside the range exported, no longer has rows. */
  removedDays: number;
  /** Rows whose export date is NULL: they belong to no day and are not exported. */
  rowsWithoutDate: number;
}

/** What an export did. */
export interface ExportSummary {
  /** The export folder, absolute. */
  to: string;
  /** The manifest file, absolute. */
  manifest: string;
  models: ModelExportSummary[];
  durationMs: number;
}

/** Who hears of the exports of each warehouse in this process (see {@link onExport}). */
const exportListeners = new WarehouseListeners<ExportSummary>();

/**
 * Calls `listener` after every export of `warehouse` done in this process, whoever asked for it (a
 * schedule, or `market export` through the collector); returns what stops it.
 */
export function onExport(warehouse: Warehouse, listener: (summary: ExportSummary) => void): () => void {
  return exportListeners.on(warehouse, listener);
}

/** The name of every day's file. */
const PART = 'part-0.parquet';

interface ExportContext {
  to: string;
  aside: string;
  now: number;
  onProgress: ((progress: ExportProgress) => void) | undefined;
}

/**
 * Exports models of `warehouse` to parquet. Every model and day is read in one transaction (one
 * consistent state of the warehouse). Unknown or unexported model names, malformed days, and models
 * not built yet throw an `ExportInputError` before anything is written. Exports into the same
 * folder run one at a time.
 *
 * @example
 * await exportModels(warehouse, { to: 'data/exports', since: '2026-11-01' });
 * // data/exports/fct_prices_hourly/date=2026-11-01/part-0.parquet, …, data/exports/manifest.json
 */
export async function exportModels(
  warehouse: Warehouse,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const started = performance.now();
  const to = resolve(options.to ?? 'data/exports');
  const range = parseRange(options.since, options.until);
  const chosen = chooseModels(warehouse.models(), options.models);
  const clock = options.clock ?? warehouse.clock;
  return serializeExports(to, () =>
    warehouse.withConnection((connection) =>
      // One snapshot for every model's files; the transaction only reads, so its COMMIT changes nothing.
      inTransaction(connection, async () => {
        const now = clock();
        const plans = await planModels(connection, chosen, range, dayOf(now));
        const models =
          plans.length === 0
            ? []
            : await withAsideFolder(to, (aside) =>
                writeModels(connection, plans, { to, aside, now, onProgress: options.onProgress }),
              );
        return { to, manifest: join(to, MANIFEST), models, durationMs: performance.now() - started };
      }),
    ),
  ).then((summary) => {
    exportListeners.emit(warehouse, summary);
    return summary;
  });
}

/** Writes each model's files and, after each model, the manifest. */
async function writeModels(
  connection: DuckDBConnection,
  plans: readonly ModelPlan[],
  context: ExportContext,
): Promise<ModelExportSummary[]> {
  let manifest: Manifest = await readManifest(context.to);
  const summaries: ModelExportSummary[] = [];
  for (const plan of plans) {
    const name = plan.model.name;
    if (!plan.covered) {
      summaries.push({ model: name, files: 0, rows: 0, removedDays: 0, rowsWithoutDate: 0 });
      continue;
    }
    const { entry, obsolete, summary } = await writeModel(
      connection,
      plan,
      plan.covered,
      context,
      manifest.models[name],
    );
    const updatedAt = new Date(context.now).toISOString();
    manifest = { ...manifest, updated_at: updatedAt, models: { ...manifest.models, [name]: entry } };
    await writeManifest(context.to, manifest);
    // Removed only once the manifest no longer lists them, so every file it lists exists.
    await Promise.all(obsolete.map((path) => rm(path, { recursive: true, force: true })));
    summaries.push(summary);
  }
  return summaries;
}

/** Writes the days of one model aside, moves them into place, and works out its manifest entry. */
async function writeModel(
  connection: DuckDBConnection,
  plan: ModelPlan,
  covered: DayRange,
  context: ExportContext,
  previous: ManifestModel | undefined,
): Promise<{ entry: ManifestModel; obsolete: string[]; summary: ModelExportSummary }> {
  const name = plan.model.name;
  const { days, rowsWithoutDate } = await countDays(connection, plan, covered);
  let daysDone = 0;
  let rowsSoFar = 0;
  const staged = await copyDays(connection, plan, days, context.aside, (day) => {
    daysDone += 1;
    rowsSoFar += day.rows;
    context.onProgress?.({ model: name, day: day.day, daysDone, daysTotal: days.length, rows: rowsSoFar });
  });
  const modelDir = join(context.to, name);
  for (const [day, file] of staged) await moveIntoPlace(file, join(modelDir, `date=${day}`, PART));
  const rowsByDay = new Map(days.map((d) => [d.day, d.rows]));
  let { files, obsolete } = await reconcileDays(connection, context.to, name, rowsByDay, covered, previous);
  if (files.length === 0) {
    const empty = await writeEmptyDay(connection, plan, context);
    files = [empty];
    obsolete = obsolete.filter((path) => path !== join(context.to, dirname(empty.path)));
  }
  return {
    entry: {
      export: plan.model.exportDate ?? '',
      exported_at: new Date(context.now).toISOString(),
      partition_by: PARTITION_COLUMN,
      schema: plan.schema,
      rows: files.reduce((sum, f) => sum + f.rows, 0),
      files,
    },
    obsolete,
    summary: {
      model: name,
      files: days.length,
      rows: rowsSoFar,
      removedDays: obsolete.filter((p) => !p.endsWith('.parquet')).length,
      rowsWithoutDate,
    },
  };
}

/**
 * Sorts the day folders of a model on disk after its days moved in: the days just written, the
 * days outside `covered` (kept as they are), and what is obsolete (other files of a day just
 * written; folders of days inside `covered` that no longer have rows).
 */
async function reconcileDays(
  connection: DuckDBConnection,
  to: string,
  name: string,
  rowsByDay: ReadonlyMap<string, number>,
  covered: DayRange,
  previous: ManifestModel | undefined,
): Promise<{ files: ManifestFile[]; obsolete: string[] }> {
  const modelDir = join(to, name);
  const known = new Map((previous?.files ?? []).map((f) => [f.path, f]));
  const files: ManifestFile[] = [];
  const obsolete: string[] = [];
  for (const [day, names] of await listDayFolders(modelDir)) {
    const dayDir = join(modelDir, `date=${day}`);
    const rows = rowsByDay.get(day);
    if (rows !== undefined) {
      obsolete.push(...names.filter((n) => n !== PART).map((n) => join(dayDir, n)));
      const bytes = await sizeOf(join(dayDir, PART));
      files.push({ path: `${name}/date=${day}/${PART}`, date: day, rows, bytes });
    } else if (inRange(day, covered)) {
      obsolete.push(dayDir);
    } else {
      for (const n of names) {
        files.push(await describeKeptFile(connection, to, `${name}/date=${day}/${n}`, day, known));
      }
    }
  }
  return { files, obsolete };
}

/** The manifest line of a file kept from an earlier export: its row count from the manifest, or read from the file. */
async function describeKeptFile(
  connection: DuckDBConnection,
  to: string,
  path: string,
  day: string,
  known: ReadonlyMap<string, ManifestFile>,
): Promise<ManifestFile> {
  const file = join(to, path);
  const bytes = await sizeOf(file);
  const listed = known.get(path);
  if (listed && listed.bytes === bytes) return { ...listed, date: day };
  try {
    const reader = await connection.runAndReadAll(
      `SELECT count(*) FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`,
    );
    return { path, date: day, rows: Number(reader.getRows()[0]?.[0] ?? 0), bytes };
  } catch (cause) {
    throw new Error(
      `cannot read ${file}, kept from an earlier export: ${(cause as Error).message}; remove it, or export day ${day} again`,
      { cause },
    );
  }
}

/**
 * A model without a row anywhere gets one file of no rows with its columns, in the folder of the
 * export's day, so that readers given the model's folder (pyarrow and polars with Hive
 * partitioning, which fail on a folder without files) read its schema and no rows.
 */
async function writeEmptyDay(
  connection: DuckDBConnection,
  plan: ModelPlan,
  context: ExportContext,
): Promise<ManifestFile> {
  const day = dayOf(context.now);
  const staged = join(context.aside, `${plan.model.name}-empty.parquet`);
  await connection.run(
    `COPY (SELECT ${plan.select} FROM "${plan.model.name}" WHERE false) TO ${sqlString(staged)} (FORMAT parquet)`,
  );
  const path = `${plan.model.name}/date=${day}/${PART}`;
  await moveIntoPlace(staged, join(context.to, path));
  return { path, date: day, rows: 0, bytes: await sizeOf(join(context.to, path)) };
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file)).size;
}
