/** The relations whose old days move to the lake, each with the time column that dates its rows. */

/** A relation the lake holds days of. */
export interface LakeRelation {
  /** The table's name (a model's name for a model). */
  name: string;
  /** `raw`: a landing table, dated by when it landed; `model`: an incremental model's table. */
  kind: 'raw' | 'model';
  /** The TIMESTAMP (or DATE) column whose UTC day is the row's partition. */
  time: string;
  /** The columns a day file's rows are sorted by (a model's `order_by:` line); empty: as stored. */
  orderBy: readonly string[];
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

/** The landing tables of the lake, each row dated by when it landed. */
export const RAW_RELATIONS: readonly LakeRelation[] = RAW_TABLES.map((name) => ({
  name,
  kind: 'raw' as const,
  time: 'ingested_at',
  orderBy: [],
}));

/**
 * The lake's relations: the landing tables, then the models whose header has a `-- lake: column`
 * line (the source of which models move: an incremental model whose rows are final once their time
 * is a few days old; see `lake/README.md`).
 */
export function lakeRelationsOf(
  models: readonly { name: string; lake: string | null; orderBy: readonly string[] }[],
): LakeRelation[] {
  const moving = models.flatMap((m) =>
    m.lake === null ? [] : [{ name: m.name, kind: 'model' as const, time: m.lake, orderBy: m.orderBy }],
  );
  return [...RAW_RELATIONS, ...moving];
}

/** The table an incremental model that moved builds its rows in; its own name is then the view over that and the lake. */
export function hotTableOf(model: string): string {
  return `${model}__hot`;
}

/** The relation `name` among `relations`. */
export function lakeRelation(relations: readonly LakeRelation[], name: string): LakeRelation {
  const relation = relations.find((r) => r.name === name);
  if (relation === undefined) throw new Error(`the lake holds no relation ${name}`);
  return relation;
}
