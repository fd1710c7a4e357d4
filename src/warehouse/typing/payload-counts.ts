/**
 * Counts what a batch's raw prices or account rows carry, as they land, in the same tables as the
 * stream's counts (`payload_checks`, `payload_fields`; see `payload-checks.ts`): the batch's rows
 * are read back through their typed view and `rejected_payloads`, so the counts say exactly what
 * an analyst will see.
 */
import { hotTableOf } from '../lake/relations.js';
import { type LandingContext, msToTimestamp, run } from '../landing/sql.js';

/** Where one kind of raw row lands and how it reads typed. */
export interface LandedPayloads {
  /** The landing table, e.g. `raw_minask_prices` (its rows in the file are in `<raw>__hot`). */
  raw: string;
  /** Its typed view, e.g. `minask_prices_typed`. */
  typed: string;
  /** The `kind` its rejected rows carry in `rejected_payloads`. */
  kinds: readonly string[];
  /** The raw table's receive time column, e.g. `fetched_at`. */
  receivedAt: string;
  /** The table recording the rows that repeat a stored one (counted as payloads too: the typed view reads them back). */
  repeats?: string;
  /** What tells one payload from another among typed rows of one batch (a payload may type as several rows). @default one row, one payload */
  payloadKey?: string;
}

/**
 * Counts `rows` landed in `landed.raw` and `repeated` in `landed.repeats` for the batch and, when
 * there are any, adds them to its source's payload counts.
 */
export async function countLandedPayloads(
  context: LandingContext,
  rows: number,
  landed: LandedPayloads,
  repeated = 0,
): Promise<void> {
  const { raw, typed, receivedAt, repeats } = landed;
  context.count(raw, rows);
  if (repeats !== undefined) context.count(repeats, repeated);
  if (rows + repeated === 0) return;
  const repeatPayloads =
    repeats === undefined ? '0' : `(SELECT count(*) FROM ${hotTableOf(repeats)} WHERE load_id = $load)`;
  const kinds = landed.kinds.map((k) => `'${k}'`).join(', ');
  const partly = landed.payloadKey ? `count(DISTINCT ${landed.payloadKey})` : 'count(*)';
  await run(
    context,
    `INSERT INTO payload_checks (source, payloads, rejected, partly_typed, updated_at)
     SELECT $source, (SELECT count(*) FROM ${hotTableOf(raw)} WHERE load_id = $load) + ${repeatPayloads},
            (SELECT count(*) FROM rejected_payloads WHERE load_id = $load AND kind IN (${kinds})),
            (SELECT ${partly} FROM ${typed} WHERE load_id = $load AND len(typing_notes) > 0),
            ${msToTimestamp('$now')}
     ON CONFLICT (source) DO UPDATE SET payloads = payloads + excluded.payloads,
       rejected = rejected + excluded.rejected, partly_typed = partly_typed + excluded.partly_typed,
       updated_at = excluded.updated_at`,
    { source: context.source, load: context.loadId, now: context.now },
  );
  await run(
    context,
    `INSERT INTO payload_fields (source, field, first_seen_at, first_load_id, payloads)
     SELECT $source, field, min(${receivedAt}), $load, count(*)
     FROM (
       SELECT unnest(json_keys(data)) AS field, ${receivedAt} FROM ${hotTableOf(raw)}
       WHERE load_id = $load AND coalesce(try(json_type(data)) = 'OBJECT', false)
     )
     GROUP BY field
     ON CONFLICT (source, field) DO UPDATE SET payloads = payloads + excluded.payloads`,
    { source: context.source, load: context.loadId },
  );
}
