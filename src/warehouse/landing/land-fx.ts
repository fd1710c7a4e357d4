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
 * Lands an FX answer in `raw_fx_rates` unless it is byte-identical to the last answer stored for
 * its update (`updated_at`): that one is recorded in `raw_fx_rate_repeats`. Without an update time
 * the fetch is the key; a replay of a fetch landed already adds nothing. Nothing of it is parsed
 * here: `fx_rates` types it.
 */
async function landFx(context: LandingContext, fx: FxRates): Promise<void> {
  const updated = msToTimestamp('$updated');
  const fetched = msToTimestamp('$fetched');
  const answer = fx.answer ?? {
    base: 'USD',
    rates: fx.rates,
    updated_at: fx.updatedAt === null ? null : new Date(fx.updatedAt).toISOString(),
  };
  const params = {
    updated: fx.updatedAt,
    fetched: fx.fetchedAt,
    data: JSON.stringify(answer) ?? 'null',
    load: context.loadId,
    now: context.now,
  };
  const [same] = (
    await context.connection.runAndReadAll(
      `SELECT EXISTS (SELECT 1 FROM raw_fx_rates__hot WHERE fetched_at = ${fetched} AND updated_at IS NOT DISTINCT FROM ${updated})
           OR EXISTS (SELECT 1 FROM raw_fx_rate_repeats__hot WHERE fetched_at = ${fetched} AND updated_at = ${updated}) AS replayed,
              (SELECT arg_max(data = $data, fetched_at) FROM raw_fx_rates__hot WHERE updated_at = ${updated}) AS repeat`,
      { updated: fx.updatedAt, fetched: fx.fetchedAt, data: params.data },
    )
  ).getRowObjects();
  if (same?.replayed === true) return;
  if (same?.repeat === true) {
    const repeats = await run(
      context,
      `INSERT INTO raw_fx_rate_repeats__hot
       SELECT ${updated}, ${fetched}, max(fetched_at), $load, ${msToTimestamp('$now')}
       FROM raw_fx_rates__hot WHERE updated_at = ${updated}`,
      { updated: fx.updatedAt, fetched: fx.fetchedAt, load: context.loadId, now: context.now },
    );
    context.count('raw_fx_rate_repeats', repeats);
    return;
  }
  const landed = await run(
    context,
    `INSERT INTO raw_fx_rates__hot SELECT ${updated}, ${fetched}, $data, $load, ${msToTimestamp('$now')}`,
    params,
  );
  await countLandedPayloads(context, landed, {
    raw: 'raw_fx_rates',
    typed: 'fx_rates_typed',
    kinds: ['fx_rates'],
    receivedAt: 'fetched_at',
    payloadKey: 'raw',
  });
}
