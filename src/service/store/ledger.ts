/** The balance ledger: one row per movement on an account's balance. */
import { randomId } from '../auth/api-keys.js';
import type { Database } from './database.js';

/** Ledger row types; `adjustment` is written by the ledger itself, never asked for. */
export type LedgerType =
  | 'purchase'
  | 'refund'
  | 'sale'
  | 'deposit'
  | 'withdrawal'
  | 'bonus'
  | 'fee'
  | 'adjustment';

/** One movement to append. */
export interface LedgerEntry {
  accountId: string;
  seq: number;
  type: LedgerType;
  amountCents: number;
  balanceAfterCents: number;
  orderId: string | null;
  description: string;
  at: number;
}

/** Formats integer cents as an exact DECIMAL literal (`1234` → `12.34`). */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Appends a ledger row inside the caller's transaction. */
export async function appendLedgerRow(db: Database, entry: LedgerEntry): Promise<void> {
  await db.run(
    `INSERT INTO ledger (id, account_id, seq, type, amount_usd, balance_after_usd, order_id, description, created_at)
     VALUES ($id, $account_id, $seq, $type, $amount::DECIMAL(18,2), $after::DECIMAL(18,2), $order_id, $description, make_timestamp($at * 1000))`,
    {
      id: `txn_${randomId(16)}`,
      account_id: entry.accountId,
      seq: entry.seq,
      type: entry.type,
      amount: centsToDecimal(entry.amountCents),
      after: centsToDecimal(entry.balanceAfterCents),
      order_id: entry.orderId,
      description: entry.description,
      at: entry.at,
    },
  );
}
