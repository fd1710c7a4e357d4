/** Lands the account side raw: ledger rows once per transaction id, object states once per (kind, id, updated_at) and text. */

import { countLandedPayloads } from '../typing/payload-counts.js';
import { appendText, appendToTemp } from './appender.js';
import { defineLander } from './lander.js';
import { firstOfEachKey, type LandingContext, msToTimestamp, run } from './sql.js';

/** A ledger row as `GET /transactions` answered it, with when the collector read it. */
export interface LedgerRow {
  /** The row's `id` when it is a string, else null (the row is then landed once per text, and rejected). */
  id: string | null;
  /** The row as the page held it. */
  transaction: unknown;
  observedAt: number;
}

/** What kind of object an account state belongs to. */
export type AccountObjectKind = 'order' | 'p2p_listing' | 'sell_order';

/** One state of an order, P2P listing or sell order, as the API answered it. */
export interface AccountStateRow {
  kind: AccountObjectKind;
  /** The object's id as its feed names it; null when it names none (landed, and rejected). */
  id: string | null;
  /** The order's game; null for the others. */
  appId: number | null;
  /** The object's `updated_at` as sent (ISO 8601), null when it sent none. */
  updatedAt: string | null;
  observedAt: number;
  /** The object as answered. */
  body: unknown;
}

/** The batch's `ledger`: rows of `GET /transactions`, landed once per id. */
export const ledgerLander = defineLander({
  field: 'ledger',
  merge: 'append',
  rows: (rows: readonly LedgerRow[]) => rows.length,
  land: landLedger,
});

/** The batch's `accountStates`: states of the account's objects, stored once per (kind, id, updated_at) and text. */
export const accountStatesLander = defineLander({
  field: 'accountStates',
  merge: 'append',
  rows: (rows: readonly AccountStateRow[]) => rows.length,
  land: landAccountStates,
});

/** The JSON text a row lands as. */
function textOf(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

async function landLedger(context: LandingContext, rows: readonly LedgerRow[]): Promise<void> {
  const fresh = firstOfEachKey(
    rows.map((r) => ({ ...r, data: textOf(r.transaction) })),
    (r) => r.id ?? r.data,
  );
  if (fresh.length === 0) return;
  await appendToTemp(context, '_wh_ledger', { i: 'VARCHAR', w: 'DOUBLE', d: 'VARCHAR' }, fresh, (a, r) => {
    appendText(a, r.id);
    a.appendDouble(r.observedAt);
    a.appendVarchar(r.data);
  });
  // A row without an id cannot be told apart by id: the same text is the same row.
  const landed = await run(
    context,
    `INSERT INTO raw_account_transactions__hot
     SELECT i, ${msToTimestamp('w')}, d, $load, ${msToTimestamp('$now')} FROM _wh_ledger s
     WHERE NOT EXISTS (SELECT 1 FROM raw_account_transactions__hot t WHERE t.transaction_id = s.i)
       AND NOT (s.i IS NULL AND EXISTS (
         SELECT 1 FROM raw_account_transactions__hot t WHERE t.transaction_id IS NULL AND t.data = s.d))`,
    { load: context.loadId, now: context.now },
  );
  await run(context, 'DROP TABLE _wh_ledger');
  await countLandedPayloads(context, landed, {
    raw: 'raw_account_transactions',
    typed: 'account_transactions_typed',
    kinds: ['transaction'],
    receivedAt: 'observed_at',
  });
}

async function landAccountStates(context: LandingContext, rows: readonly AccountStateRow[]): Promise<void> {
  const fresh = firstOfEachKey(
    rows.map((r) => ({ ...r, data: textOf(r.body) })),
    (r) => `${r.kind}\n${r.id ?? r.data}\n${r.updatedAt ?? r.data}\n${r.data}`,
  );
  if (fresh.length === 0) return;
  const columns = { k: 'VARCHAR', i: 'VARCHAR', p: 'INTEGER', u: 'VARCHAR', w: 'DOUBLE', d: 'VARCHAR' };
  await appendToTemp(context, '_wh_states', columns, fresh, (a, r) => {
    a.appendVarchar(r.kind);
    appendText(a, r.id);
    if (r.appId === null) a.appendNull();
    else a.appendInteger(r.appId);
    appendText(a, r.updatedAt);
    a.appendDouble(r.observedAt);
    a.appendVarchar(r.data);
  });
  await run(context, JUDGE_STATES);
  const tail = `$load, ${msToTimestamp('$now')}`;
  const landed = await run(
    context,
    `INSERT INTO raw_account_states__hot
     SELECT k, i, p, u, ${msToTimestamp('w')}, d, ${tail} FROM _wh_states_judged WHERE NOT repeat`,
    { load: context.loadId, now: context.now },
  );
  const repeats = await run(
    context,
    `INSERT INTO raw_account_state_repeats__hot
     SELECT k, i, p, u, ${msToTimestamp('w')}, same_load, h, ${tail} FROM _wh_states_judged WHERE repeat`,
    { load: context.loadId, now: context.now },
  );
  context.count('raw_account_state_repeats', repeats);
  await run(context, 'DROP TABLE _wh_states');
  await run(context, 'DROP TABLE _wh_states_judged');
  await countLandedPayloads(context, landed, {
    raw: 'raw_account_states',
    typed: 'account_states_typed',
    kinds: ['order', 'p2p_listing', 'sell_order'],
    receivedAt: 'observed_at',
  });
}

/**
 * The batch's states (`_wh_states`) judged in `_wh_states_judged`: `u`, the updated_at read as a
 * time (null when it does not read: only the id and updated_at are read, for the key), `h`, the
 * md5 of the text, and `repeat` when byte-identical to the last state stored for its key (kind,
 * id, updated_at; without an id or a time, the text), with `same_load`, the load that stored it.
 */
const JUDGE_STATES = `CREATE OR REPLACE TEMP TABLE _wh_states_judged AS
  WITH s AS (
    SELECT * EXCLUDE (u), try_cast(u AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS u, md5_number(d) AS h FROM _wh_states
  ),
  last AS (
    SELECT a.kind, coalesce(a.object_id, a.data) AS ok, coalesce(CAST(a.updated_at AS VARCHAR), a.data) AS uk,
           arg_max({'h': md5_number(a.data), 'load': a.load_id}, (a.ingested_at, a.observed_at)) AS last
    FROM raw_account_states__hot a
    WHERE a.kind IN (SELECT DISTINCT k FROM s) AND coalesce(a.object_id, a.data) IN (SELECT coalesce(i, d) FROM s)
    GROUP BY ALL
  )
  SELECT s.*, coalesce(l.last.h = s.h, false) AS repeat, l.last.load AS same_load
  FROM s LEFT JOIN last l
    ON l.kind = s.k AND l.ok = coalesce(s.i, s.d) AND l.uk = coalesce(CAST(s.u AS VARCHAR), s.d)`;
