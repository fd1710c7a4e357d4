/** Lands FX rates raw: the answer of GET /currency as sent, once per update. */

import { countLandedPayloads } from '../typing/payload-counts.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** FX rates: units of each currency per 1 USD. */
export interface FxRates {
  /** The answer's `updated_at` (epoch ms), null when it sent none that reads as a time. */
  updatedAt: number | null;
  fetchedAt: number;
  /** The answer's `rates`, as sent. */
  rates: unknown;
  /** The whole answer as sent; without it, `{ base: 'USD', rates, updated_at }` is landed. */
  answer?: unknown;
}

/** The batch's `fx`: one set of rates per batch. */
export const fxLander = defineLander({
  field: 'fx',
  merge: 'once',
  rows: (fx: FxRates) =>
    typeof fx.rates === 'object' && fx.rates !== null ? Object.keys(fx.rates).length : 1,
  land: landFx,
});

/**
 * Lands an FX answer in `raw_fx_rates` unless rates of the same update landed already (without an
 * update time, unless the same fetch did). Nothing of it is parsed here: `fx_rates` types it.
 */
async function landFx(context: LandingContext, fx: FxRates): Promise<void> {
  const updated = msToTimestamp('$updated');
  const answer = fx.answer ?? {
    base: 'USD',
    rates: fx.rates,
    updated_at: fx.updatedAt === null ? null : new Date(fx.updatedAt).toISOString(),
  };
  const landed = await run(
    context,
    `INSERT INTO raw_fx_rates
     SELECT ${updated}, ${msToTimestamp('$fetched')}, $data, $load, ${msToTimestamp('$now')}
     WHERE NOT EXISTS (
       SELECT 1 FROM raw_fx_rates
       WHERE updated_at = ${updated} OR ($updated IS NULL AND fetched_at = ${msToTimestamp('$fetched')})
     )`,
    {
      updated: fx.updatedAt,
      fetched: fx.fetchedAt,
      data: JSON.stringify(answer) ?? 'null',
      load: context.loadId,
      now: context.now,
    },
  );
  await countLandedPayloads(context, landed, {
    raw: 'raw_fx_rates',
    typed: 'fx_rates_typed',
    kinds: ['fx_rates'],
    receivedAt: 'fetched_at',
    payloadKey: 'raw',
  });
}
