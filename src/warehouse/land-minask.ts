/** Lands a game's minAsk price list, once per group and list build. */
import type { PriceRow } from '../contract/market.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';
import { withStagedRows } from './staging.js';

/** One game's minAsk price list. */
export interface MinAskList {
  appId: number;
  fetchedAt: number;
  generatedAt: number;
  rows: PriceRow[];
}

/** Column types of a PriceRow line. */
export const PRICE_ROW_COLUMNS = {
  market_hash_name: 'VARCHAR',
  wear: 'VARCHAR',
  doppler_phase: 'VARCHAR',
  min_ask_usd: 'DECIMAL(18,2)',
  listed_count: 'INTEGER',
};

/** The batch's `minask`: one price list per batch. */
export const minAskLander = defineLander({
  field: 'minask',
  merge: 'once',
  rows: (list: MinAskList) => list.rows.length,
  land: landMinAsk,
});

/** Lands a minAsk price list in `minask_prices`; a group already landed for the same list build is skipped. */
async function landMinAsk(context: LandingContext, list: MinAskList): Promise<void> {
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
