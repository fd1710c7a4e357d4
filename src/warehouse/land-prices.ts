/** Lands market prices: the CS2 snapshot file (or its 304), minAsk price lists and FX rates. */
import type { FxRates, MinAskList, SnapshotFetch } from './batch.js';
import { type LandingContext, msToTimestamp, run, unnestJson } from './sql.js';
import { withStagedRows } from './staging.js';

/** Column types of a PriceRow line. */
const PRICE_ROW_COLUMNS = {
  market_hash_name: 'VARCHAR',
  wear: 'VARCHAR',
  doppler_phase: 'VARCHAR',
  min_ask_usd: 'DECIMAL(18,2)',
  listed_count: 'INTEGER',
};
const SNAPSHOT_COLUMNS = `{${Object.entries(PRICE_ROW_COLUMNS)
  .map(([name, type]) => `${name}: '${type}'`)
  .join(', ')}}`;

/**
 * Records a snapshot fetch in `snapshot_fetches` (once per ETag and fetch time). A downloaded file
 * is loaded into `price_snapshots` with DuckDB's `read_json` (gzip is read transparently), unless
 * rows of that ETag are already there: the same ETag means the same prices. Without an ETag (`''`)
 * only a replay of the same fetch is skipped.
 */
export async function landSnapshot(context: LandingContext, snapshot: SnapshotFetch): Promise<void> {
  let landed = 0;
  if (snapshot.status === 'downloaded') {
    landed = await run(
      context,
      `INSERT INTO price_snapshots
       SELECT $etag, ${msToTimestamp('$generated')}, ${msToTimestamp('$fetched')}, market_hash_name, wear,
              doppler_phase, min_ask_usd, listed_count, $load, ${msToTimestamp('$now')}
       FROM read_json($file, format = 'newline_delimited', columns = ${SNAPSHOT_COLUMNS})
       WHERE NOT EXISTS (
         SELECT 1 FROM price_snapshots
         WHERE etag = $etag AND ($etag <> '' OR fetched_at = ${msToTimestamp('$fetched')})
       )`,
      {
        etag: snapshot.etag,
        generated: snapshot.generatedAt,
        fetched: snapshot.fetchedAt,
        file: snapshot.file,
        load: context.loadId,
        now: context.now,
      },
    );
    context.count('price_snapshots', landed);
  }
  const fetches = await run(
    context,
    `INSERT INTO snapshot_fetches
     SELECT ${msToTimestamp('$fetched')}, $etag, $status, $rows, $load, ${msToTimestamp('$now')}
     WHERE NOT EXISTS (
       SELECT 1 FROM snapshot_fetches WHERE etag = $etag AND fetched_at = ${msToTimestamp('$fetched')}
     )`,
    {
      fetched: snapshot.fetchedAt,
      etag: snapshot.etag,
      status: snapshot.status,
      rows: landed,
      load: context.loadId,
      now: context.now,
    },
  );
  context.count('snapshot_fetches', fetches);
}

/** Lands a minAsk price list in `minask_prices`; a group already landed for the same list build is skipped. */
export async function landMinAsk(context: LandingContext, list: MinAskList): Promise<void> {
  if (list.rows.length === 0) return;
  const landed = await withStagedRows(context, list.rows, PRICE_ROW_COLUMNS, (from, params) =>
    run(
      context,
      `INSERT INTO minask_prices
       SELECT $app, ${msToTimestamp('$fetched')}, ${msToTimestamp('$generated')}, market_hash_name, wear,
              doppler_phase, min_ask_usd, listed_count, $load, ${msToTimestamp('$now')}
       FROM ${from} s
       WHERE NOT EXISTS (
         SELECT 1 FROM minask_prices m
         WHERE m.app_id = $app AND m.generated_at = ${msToTimestamp('$generated')}
           AND m.market_hash_name = s.market_hash_name
           AND m.wear IS NOT DISTINCT FROM s.wear AND m.doppler_phase IS NOT DISTINCT FROM s.doppler_phase
       )
       QUALIFY row_number() OVER (PARTITION BY market_hash_name, wear, doppler_phase) = 1`,
      {
        ...params,
        app: list.appId,
        fetched: list.fetchedAt,
        generated: list.generatedAt,
        load: context.loadId,
        now: context.now,
      },
    ),
  );
  context.count('minask_prices', landed);
}

/** Lands FX rates in `fx_rates`, once per (currency, updatedAt). */
export async function landFx(context: LandingContext, fx: FxRates): Promise<void> {
  const rows = Object.entries(fx.rates).map(([c, r]) => ({ c, r }));
  if (rows.length === 0) return;
  const landed = await run(
    context,
    `INSERT INTO fx_rates (currency, rate, base, updated_at, fetched_at, load_id, ingested_at)
     SELECT r.c, r.r, 'USD', ${msToTimestamp('$updated')}, ${msToTimestamp('$fetched')}, $load, ${msToTimestamp('$now')}
     FROM ${unnestJson('rows', { c: 'VARCHAR', r: 'DOUBLE' })} s
     WHERE NOT EXISTS (
       SELECT 1 FROM fx_rates f WHERE f.currency = s.r.c AND f.updated_at = ${msToTimestamp('$updated')}
     )`,
    {
      rows: JSON.stringify(rows),
      updated: fx.updatedAt,
      fetched: fx.fetchedAt,
      load: context.loadId,
      now: context.now,
    },
  );
  context.count('fx_rates', landed);
}
