/** The relations whose old days move to the lake, each with the time column that dates its rows. */

/** A relation the lake holds days of. */
export interface LakeRelation {
  /** The table's name (a model's name for a model). */
  name: string;
  /** `raw`: a landing table, dated by when it landed; `model`: an incremental model's table. */
  kind: 'raw' | 'model';
  /** The TIMESTAMP (or DATE) column whose UTC day is the row's partition. */
  time: string;
}

/**
 * Every landing table of payloads, each row dated by `ingested_at`: what a full refresh rebuilds
 * the models from. `listing_gone` (a sweep's verdicts, one small row per departure found) stays
 * in the file: analysts and `stg_listing_departures` read it by its name.
 */
const RAW_TABLES = [
  'raw_listing_events',
  'raw_listing_observations',
  'raw_listing_repeats',
  'raw_price_snapshots',
  'raw_price_snapshot_repeats',
  'raw_minask_prices',
  'raw_minask_price_repeats',
  'raw_fx_rates',
  'raw_fx_rate_repeats',
  'raw_account_transactions',
  'raw_account_states',
  'raw_account_state_repeats',
];

/**
 * The incremental models whose rows are final once their time is a few days old, with that time:
 * an increment rewrites only rows of what happened since its last build. The models of stays
 * (`int_listing_spells`, `fct_listing_lifecycle`) are left out: a row of a listing seen long ago
 * changes when it leaves; `dim_items` is one row per item, with no day.
 */
const MODEL_TABLES: Record<string, string> = {
  stg_listing_events: 'received_at',
  stg_price_lists: 'fetched_at',
  int_live_minask_changes: 'minute',
  int_minask_minutes: 'minute',
  // Its runs of unchanged figures end with their day.
  int_minask_spells: 'minute',
  fct_minask_hourly: 'hour',
  fct_minask_daily: 'day',
};

/** The lake's relations: the landing tables, then the models. */
export const LAKE_RELATIONS: readonly LakeRelation[] = [
  ...RAW_TABLES.map((name) => ({ name, kind: 'raw' as const, time: 'ingested_at' })),
  ...Object.entries(MODEL_TABLES).map(([name, time]) => ({ name, kind: 'model' as const, time })),
];

/** The table an incremental model that moved builds its rows in; its own name is then the view over that and the lake. */
export function hotTableOf(model: string): string {
  return `${model}__hot`;
}

/** Whether the lake holds days of the model `name`. */
export function isLakeModel(name: string): boolean {
  return name in MODEL_TABLES;
}

/** The relation `name` of the lake. */
export function lakeRelation(name: string): LakeRelation {
  const relation = LAKE_RELATIONS.find((r) => r.name === name);
  if (relation === undefined) throw new Error(`the lake holds no relation ${name}`);
  return relation;
}
