/** Lands a game's minAsk price list raw, once per list build. */

import { countLandedPayloads } from '../typing/payload-counts.js';
import { appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run } from './sql.js';

/** One game's minAsk price list, its rows as the pages held them. */
export interface MinAskList {
  appId: number;
  fetchedAt: number;
  /** The list's `generated_at` (epoch ms), null when the pages sent none that reads as a time. */
  generatedAt: number | null;
  /** Each row as the JSON value of the page's `items` (a PriceRow when the upstream keeps the contract). */
  rows: readonly unknown[];
}

/** The batch's `minask`: one price list per batch. */
export const minAskLander = defineLander({
  field: 'minask',
  merge: 'once',
  rows: (list: MinAskList) => list.rows.length,
  land: landMinAsk,
});

/**
 * Lands a minAsk price list in `raw_minask_prices`, each row as its JSON text with its place in the
 * list, unless the same build (app and generated_at; without one, the same fetch) landed already.
 * Nothing of a row is parsed here: `minask_prices` types them.
 */
async function landMinAsk(context: LandingContext, list: MinAskList): Promise<void> {
  if (list.rows.length === 0) return;
  const generated = msToTimestamp('$generated');
  const [landedBefore] = (
    await context.connection.runAndReadAll(
      `SELECT EXISTS (SELECT 1 FROM raw_minask_prices WHERE app_id = $app
                        AND (generated_at = ${generated} OR ($generated IS NULL AND fetched_at = ${msToTimestamp('$fetched')})))`,
      { app: list.appId, generated: list.generatedAt, fetched: list.fetchedAt },
    )
  ).getRows();
  if (landedBefore?.[0] === true) return;
  await appendToTemp(context, '_wh_minask', { p: 'INTEGER', d: 'VARCHAR' }, list.rows, (appender, row, i) => {
    appender.appendInteger(i);
    appender.appendVarchar(JSON.stringify(row) ?? 'null');
  });
  const landed = await run(
    context,
    `INSERT INTO raw_minask_prices
     SELECT $app, ${generated}, ${msToTimestamp('$fetched')}, p, d, $load, ${msToTimestamp('$now')} FROM _wh_minask`,
    {
      app: list.appId,
      fetched: list.fetchedAt,
      generated: list.generatedAt,
      load: context.loadId,
      now: context.now,
    },
  );
  await run(context, 'DROP TABLE _wh_minask');
  await countLandedPayloads(context, landed, {
    raw: 'raw_minask_prices',
    typed: 'minask_prices_typed',
    kinds: ['price_row'],
    receivedAt: 'fetched_at',
  });
}
