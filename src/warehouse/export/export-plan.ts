/**
 * What an export covers, settled before any file is touched: the days asked for, the models (known,
 * exported, built), and how each model's rows map to day files.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Model } from '../models/index.js';
import { ExportInputError } from './export-input-error.js';

/** A column as a hive-partitioned read of the files gives it. */
export interface ExportColumn {
  name: string;
  /** The DuckDB type, e.g. `DECIMAL(18,2)`. */
  type: string;
}

/** Days, both ends included, as YYYY-MM-DD; null: unbounded on that side. */
export interface DayRange {
  since: string | null;
  until: string | null;
}

/** One model's export. */
export interface ModelPlan {
  model: Model;
  /** SQL of the DATE each row belongs to. */
  dateSql: string;
  /** The SELECT list of the files: the model's columns, except a `date` column of its own. */
  select: string;
  /** The file columns, then the `date` partition column. */
  schema: ExportColumn[];
  /** Days this export rewrites, and whose folders it removes when they have no rows; null: none. */
  covered: DayRange | null;
}

/** The partition column every export adds. */
export const PARTITION_COLUMN = 'date';

/** True for a real calendar day written YYYY-MM-DD. */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  return !Number.isNaN(ms) && dayOf(ms) === value;
}

/** The UTC day of an epoch-ms instant, as YYYY-MM-DD. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** True when `day` lies in `range`. */
export function inRange(day: string, range: DayRange): boolean {
  return (range.since === null || day >= range.since) && (range.until === null || day <= range.until);
}

/** Checks `since` and `until` and returns them as a range. */
export function parseRange(since: string | undefined, until: string | undefined): DayRange {
  for (const [name, value] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (value !== undefined && !isDay(value))
      throw new ExportInputError(`${name} must be a day written YYYY-MM-DD, e.g. 2026-11-01, not "${value}"`);
  }
  if (since !== undefined && until !== undefined && since > until)
    throw new ExportInputError(`since (${since}) is after until (${until}): no day is in that range`);
  return { since: since ?? null, until: until ?? null };
}

/** The models to export, in dependency order: the named ones, or every model with an `export:` line. */
export function chooseModels(all: readonly Model[], names: readonly string[] | undefined): Model[] {
  if (!names || names.length === 0) return all.filter((m) => m.exportDate !== null);
  const byName = new Map(all.map((m) => [m.name, m]));
  const exported = all.filter((m) => m.exportDate !== null).map((m) => m.name);
  for (const name of names) {
    const model = byName.get(name);
    if (!model)
      throw new ExportInputError(
        `no model is named ${name}; models with an export: ${exported.join(', ') || '(none)'}`,
      );
    if (model.exportDate === null)
      throw new ExportInputError(
        `model ${name} is not exported: add a "-- export: <date expression>" (or "-- export: snapshot") line to its header`,
      );
  }
  const wanted = new Set(names);
  return all.filter((m) => wanted.has(m.name));
}

/**
 * Plans each model on `connection`: refuses models not built yet, checks that the date expression
 * binds, and reads the schema. `today` is the day a snapshot model's rows belong to.
 */
export async function planModels(
  connection: DuckDBConnection,
  models: readonly Model[],
  range: DayRange,
  today: string,
): Promise<ModelPlan[]> {
  await requireBuilt(connection, models);
  const plans: ModelPlan[] = [];
  for (const model of models) plans.push(await planModel(connection, model, range, today));
  return plans;
}

async function requireBuilt(connection: DuckDBConnection, models: readonly Model[]): Promise<void> {
  if (models.length === 0) return;
  const reader = await connection.runAndReadAll(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'",
  );
  const built = new Set(reader.getRows().map((r) => String(r[0])));
  const missing = models.filter((m) => !built.has(m.name)).map((m) => m.name);
  if (missing.length > 0)
    throw new ExportInputError(
      `model${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'have' : 'has'} not been built yet; run \`market models run\` first`,
    );
}

async function planModel(
  connection: DuckDBConnection,
  model: Model,
  range: DayRange,
  today: string,
): Promise<ModelPlan> {
  const snapshot = model.exportDate === 'snapshot';
  const dateSql = snapshot ? `DATE '${today}'` : `CAST((${model.exportDate}) AS DATE)`;
  let columns: ExportColumn[];
  try {
    const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM "${model.name}"`);
    columns = reader
      .getRowObjectsJS()
      .map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
    await connection.runAndReadAll(`DESCRIBE SELECT ${dateSql} FROM "${model.name}"`);
  } catch (cause) {
    throw new Error(
      `model ${model.name} cannot be exported: its rows or its export date (${model.exportDate}) cannot be read: ${(cause as Error).message}`,
      { cause },
    );
  }
  const own = columns.find((c) => c.name.toLowerCase() === PARTITION_COLUMN);
  if (own && (snapshot || own.type !== 'DATE' || !isColumnItself(model.exportDate ?? ''))) {
    throw new Error(
      `model ${model.name} has a column named ${PARTITION_COLUMN}, which its export uses as the partition column; ` +
        `rename that column, or make it a DATE and the export date ("-- export: ${PARTITION_COLUMN}")`,
    );
  }
  const covered = snapshot ? (inRange(today, range) ? { since: today, until: today } : null) : range;
  return {
    model,
    dateSql,
    select: own ? `* EXCLUDE ("${own.name}")` : '*',
    schema: [...columns.filter((c) => c !== own), { name: PARTITION_COLUMN, type: 'DATE' }],
    covered,
  };
}

/** True when an export expression is just the `date` column (then the partition carries the same value). */
function isColumnItself(expression: string): boolean {
  return /^\s*"?date"?\s*$/i.test(expression);
}
