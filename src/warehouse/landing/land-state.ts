/** Lands a source's progress markers, committed with the rows they cover. */
import { defineLander } from './lander.js';
import { type LandingContext, msToTimestamp, run, unnestJson } from './sql.js';

/**
 * The batch's `state`: the source's progress markers (last event id, poll watermark, sweep
 * position, ETag), upserted by key; they are not counted as rows.
 */
export const stateLander = defineLander({
  field: 'state',
  merge: 'by-key',
  rows: (_: Record<string, string>) => 0,
  land: landState,
});

/** Upserts the source's progress markers in `collector_state`, by key. */
async function landState(context: LandingContext, state: Readonly<Record<string, string>>): Promise<void> {
  const rows = Object.entries(state).map(([k, v]) => ({ k, v }));
  if (rows.length === 0) return;
  await run(
    context,
    `INSERT INTO collector_state (source, key, value, updated_at)
     SELECT $source, r.k, r.v, ${msToTimestamp('$now')} FROM ${unnestJson('rows', { k: 'VARCHAR', v: 'VARCHAR' })}
     ON CONFLICT (source, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    { rows: JSON.stringify(rows), source: context.source, now: context.now },
  );
}
