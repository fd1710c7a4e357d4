/** Lands the account side: ledger rows once per transaction id, object states once per (kind, id, updated_at). */
import type { Transaction } from '../contract/account.js';
import { defineLander } from './lander.js';
import {
  firstOfEachKey,
  isoToTimestamp,
  type LandingContext,
  msToTimestamp,
  run,
  unnestJson,
} from './sql.js';

/** A ledger row as `GET /transactions` answered it, with when the collector read it. */
export interface LedgerRow {
  transaction: Transaction;
  observedAt: number;
}

/** What kind of object an account state belongs to. */
export type AccountObjectKind = 'order' | 'p2p_listing' | 'sell_order';

/** One state of an order, P2P listing or sell order, as the API answered it. */
export interface AccountStateRow {
  kind: AccountObjectKind;
  id: string;
  /** The order's game; null for the others. */
  appId: number | null;
  status: string;
  /** The object's `updated_at` (ISO 8601). */
  updatedAt: string;
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

/** The batch's `accountStates`: states of the account's objects, landed once per (kind, id, updated_at). */
export const accountStatesLander = defineLander({
  field: 'accountStates',
  merge: 'append',
  rows: (rows: readonly AccountStateRow[]) => rows.length,
  land: landAccountStates,
});

async function landLedger(context: LandingContext, rows: readonly LedgerRow[]): Promise<void> {
  const fresh = firstOfEachKey(rows, (r) => r.transaction.id).map(({ transaction: t, observedAt }) => ({
    i: t.id,
    y: t.type,
    a: t.amount_usd,
    b: t.balance_after_usd,
    o: t.order_id,
    d: t.description,
    c: t.created_at,
    w: observedAt,
  }));
  if (fresh.length === 0) return;
  const landed = await run(
    context,
    `INSERT INTO account_transactions
       (transaction_id, type, amount_usd, balance_after_usd, order_id, description, created_at, observed_at, load_id, ingested_at)
     SELECT r.i, r.y, CAST(r.a AS DECIMAL(18, 2)), CAST(r.b AS DECIMAL(18, 2)), r.o, r.d, ${isoToTimestamp('r.c')},
            ${msToTimestamp('r.w')}, $load, ${msToTimestamp('$now')}
     FROM ${unnestJson('rows', { i: 'VARCHAR', y: 'VARCHAR', a: 'DOUBLE', b: 'DOUBLE', o: 'VARCHAR', d: 'VARCHAR', c: 'VARCHAR', w: 'BIGINT' })}
     WHERE NOT EXISTS (SELECT 1 FROM account_transactions t WHERE t.transaction_id = r.i)`,
    { rows: JSON.stringify(fresh), load: context.loadId, now: context.now },
  );
  context.count('account_transactions', landed);
}

async function landAccountStates(context: LandingContext, rows: readonly AccountStateRow[]): Promise<void> {
  const fresh = firstOfEachKey(rows, (r) => `${r.kind}\n${r.id}\n${r.updatedAt}`).map((r) => ({
    k: r.kind,
    i: r.id,
    p: r.appId,
    s: r.status,
    u: r.updatedAt,
    w: r.observedAt,
    j: JSON.stringify(r.body),
  }));
  if (fresh.length === 0) return;
  const landed = await run(
    context,
    `INSERT INTO account_states (kind, object_id, app_id, status, updated_at, observed_at, body, load_id, ingested_at)
     SELECT r.k, r.i, r.p, r.s, ${isoToTimestamp('r.u')}, ${msToTimestamp('r.w')}, CAST(r.j AS JSON), $load,
            ${msToTimestamp('$now')}
     FROM ${unnestJson('rows', { k: 'VARCHAR', i: 'VARCHAR', p: 'INTEGER', s: 'VARCHAR', u: 'VARCHAR', w: 'BIGINT', j: 'VARCHAR' })}
     WHERE NOT EXISTS (
       SELECT 1 FROM account_states a
       WHERE a.kind = r.k AND a.object_id = r.i AND a.updated_at = ${isoToTimestamp('r.u')}
     )`,
    { rows: JSON.stringify(fresh), load: context.loadId, now: context.now },
  );
  context.count('account_states', landed);
}
