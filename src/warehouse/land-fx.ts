/** Lands FX rates, once per currency and update time. */
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run, unnestJson } from './sql.js';

/** FX rates: units of each currency per 1 USD. */
export interface FxRates {
  updatedAt: number;
  fetchedAt: number;
  rates: Record<string, number>;
}

/** The batch's `fx`: one set of rates per batch. */
export const fxLander = defineLander({
  field: 'fx',
  merge: 'once',
  rows: (fx: FxRates) => Object.keys(fx.rates).length,
  land: landFx,
});

/** Lands FX rates in `fx_rates`, once per (currency, updatedAt). */
async function landFx(context: LandingContext, fx: FxRates): Promise<void> {
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
