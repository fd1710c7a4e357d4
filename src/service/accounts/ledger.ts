/**
 * The balance ledger: money moves only as ledger rows, each posted in the caller's unit of work
 * together with the account's new balances. The rules (no negative balance, settled funds never
 * above the balance) are checked on every post, so a refused movement writes nothing.
 */

import { centsToUsd } from '../../contract/common.js';
import { randomId } from '../core/api-keys.js';
import type { Account } from '../core/caller.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { AccountStore } from './account-store.js';

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

/** One movement to post; amounts in cents, signed (a debit is negative). */
export interface Movement {
  accountId: string;
  type: LedgerType;
  amountCents: number;
  /** How the settled part of the balance moves with it. */
  settledDeltaCents: number;
  orderId: string | null;
  description: string;
}

/** A debit: spends pending (unsettled) funds first, unless only settled funds may pay. */
export interface Debit {
  accountId: string;
  type: LedgerType;
  amountCents: number;
  orderId: string | null;
  description: string;
  /** External delivery can only be funded outside the reversal window. @default false */
  settledOnly?: boolean;
}

/** A posted row. */
export interface PostedRow {
  id: string;
  seq: number;
  balanceAfterCents: number;
  settledAfterCents: number;
  /** The settled part of the amount (negative for a debit of settled funds). */
  settledDeltaCents: number;
}

/** A ledger row as the transaction's insert reads it (amounts as exact decimal text). */
interface LedgerRowValues {
  id: string;
  account_id: string;
  seq: number;
  type: LedgerType;
  amount: string;
  balance_after: string;
  order_id: string | null;
  description: string;
  at: number;
}

const LEDGER_ROW_SHAPE = JSON.stringify([
  {
    id: 'VARCHAR',
    account_id: 'VARCHAR',
    seq: 'BIGINT',
    type: 'VARCHAR',
    amount: 'VARCHAR',
    balance_after: 'VARCHAR',
    order_id: 'VARCHAR',
    description: 'VARCHAR',
    at: 'BIGINT',
  },
]);

interface Balances {
  balanceCents: number;
  settledCents: number;
  seq: number;
}

/** Formats integer cents as an exact DECIMAL literal (`1234` → `12.34`). */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** What a debit may be refused with (besides 404 not_found for an unknown account). */
export const DEBIT_ERRORS = ['insufficient_balance', 'insufficient_settled_balance'] as const;

const refuseDebit = refuseOnly(DEBIT_ERRORS);

/** Posts movements; balances seen inside a unit of work include its earlier posts. */
export class Ledger {
  /** Rows posted in each open transaction, inserted together just before it commits. */
  private readonly rows = new WeakMap<object, LedgerRowValues[]>();
  /** Working balances per open transaction (shared by its units of work). */
  private readonly pending = new WeakMap<object, Map<string, Balances>>();

  constructor(private readonly accounts: AccountStore) {}

  /** Spends from the balance; refused whole (`insufficient_…`) when it cannot be covered. */
  async debit(uow: UnitOfWork, debit: Debit): Promise<PostedRow> {
    const now = this.working(uow, this.accounts.requireIn(uow, debit.accountId));
    const facts = {
      balance_usd: centsToUsd(now.balanceCents),
      required_usd: centsToUsd(debit.amountCents),
      settled_usd: centsToUsd(now.settledCents),
    };
    if (now.balanceCents < debit.amountCents)
      throw refuseDebit(
        'insufficient_balance',
        'the balance is below the order total; fund the account on the website',
        facts,
      );
    if (debit.settledOnly && now.settledCents < debit.amountCents)
      throw refuseDebit(
        'insufficient_settled_balance',
        'part of the balance is still inside the reversal window and cannot fund this; wait for it to settle',
        facts,
      );
    const pendingCents = now.balanceCents - now.settledCents;
    const fromSettled = debit.settledOnly ? debit.amountCents : Math.max(0, debit.amountCents - pendingCents);
    return this.post(uow, {
      accountId: debit.accountId,
      type: debit.type,
      amountCents: -debit.amountCents,
      settledDeltaCents: -fromSettled,
      orderId: debit.orderId,
      description: debit.description,
    });
  }

  /**
   * Moves up to `cents` of the account's pending funds into its settled part (the end of a
   * reversal window); no ledger row, since the balance does not change. Returns what settled.
   */
  async settle(uow: UnitOfWork, accountId: string, cents: number): Promise<number> {
    const account = this.accounts.requireIn(uow, accountId);
    const now = this.working(uow, account);
    const settling = Math.max(0, Math.min(cents, now.balanceCents - now.settledCents));
    if (settling === 0) return 0;
    now.settledCents += settling;
    this.storeBalances(uow, accountId, now);
    this.mirrorAfterCommit(uow, account, now);
    return settling;
  }

  /** Posts one movement and the account's new balances in the unit of work. */
  async post(uow: UnitOfWork, movement: Movement): Promise<PostedRow> {
    const account = this.accounts.requireIn(uow, movement.accountId);
    const now = this.working(uow, account);
    const next: Balances = {
      balanceCents: now.balanceCents + movement.amountCents,
      settledCents: now.settledCents + movement.settledDeltaCents,
      seq: now.seq + 1,
    };
    if (next.balanceCents < 0 || next.settledCents < 0 || next.settledCents > next.balanceCents)
      throw new Error(
        `ledger rule broken for ${account.id}: balance ${next.balanceCents}, settled ${next.settledCents}`,
      );
    const id = `txn_${randomId(16)}`;
    this.queueRow(uow, {
      id,
      account_id: account.id,
      seq: next.seq,
      type: movement.type,
      amount: centsToDecimal(movement.amountCents),
      balance_after: centsToDecimal(next.balanceCents),
      order_id: movement.orderId,
      description: movement.description,
      at: uow.now,
    });
    Object.assign(now, next);
    this.storeBalances(uow, account.id, now);
    this.mirrorAfterCommit(uow, account, now);
    return {
      id,
      seq: next.seq,
      balanceAfterCents: next.balanceCents,
      settledAfterCents: next.settledCents,
      settledDeltaCents: movement.settledDeltaCents,
    };
  }

  /** The working balances of an account in the unit of work's transaction. */
  private working(uow: UnitOfWork, account: Account): Balances {
    let byAccount = this.pending.get(uow.batch);
    if (!byAccount) {
      byAccount = new Map();
      this.pending.set(uow.batch, byAccount);
    }
    let balances = byAccount.get(account.id);
    if (!balances) {
      balances = {
        balanceCents: account.balanceCents,
        settledCents: account.settledCents,
        seq: account.ledgerSeq,
      };
      byAccount.set(account.id, balances);
    }
    return balances;
  }

  /** Queues a row for the transaction's one insert of ledger rows. */
  private queueRow(uow: UnitOfWork, row: LedgerRowValues): void {
    let rows = this.rows.get(uow.batch);
    if (!rows) {
      rows = [];
      this.rows.set(uow.batch, rows);
    }
    rows.push(row);
    const all = rows;
    uow.beforeCommit('ledger rows', (tx) =>
      tx.runPrepared(
        `INSERT INTO ledger (id, account_id, seq, type, amount_usd, balance_after_usd, order_id, description, created_at)
         SELECT r.id, r.account_id, r.seq, r.type, CAST(r.amount AS DECIMAL(18,2)), CAST(r.balance_after AS DECIMAL(18,2)),
                r.order_id, r.description, make_timestamp(r.at * 1000)
         FROM (SELECT unnest(from_json($rows::JSON, '${LEDGER_ROW_SHAPE}')) AS r)`,
        { rows: JSON.stringify(all) },
      ),
    );
  }

  /** Writes the account's balances once per transaction, after all its movements. */
  private storeBalances(uow: UnitOfWork, accountId: string, balances: Balances): void {
    uow.beforeCommit(`balances:${accountId}`, (tx) =>
      tx.runPrepared(
        'UPDATE accounts SET balance_usd = $balance::DECIMAL(18,2), settled_usd = $settled::DECIMAL(18,2) WHERE id = $account',
        {
          account: accountId,
          balance: centsToDecimal(balances.balanceCents),
          settled: centsToDecimal(balances.settledCents),
        },
      ),
    );
  }

  /** Copies the working balances to the account's mirror once the unit of work commits. */
  private mirrorAfterCommit(uow: UnitOfWork, account: Account, balances: Balances): void {
    uow.afterCommit(() => {
      account.balanceCents = balances.balanceCents;
      account.settledCents = balances.settledCents;
      account.ledgerSeq = balances.seq;
    });
  }
}
