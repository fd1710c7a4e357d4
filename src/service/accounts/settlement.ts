/**
 * The reversal window of deposits: money deposited unsettled counts in the balance at once but
 * settles only when its window ends on the service clock (a due task), after which it can fund
 * external delivery and the price feed.
 */

import type { Database } from '../../shared/database.js';
import { randomId } from '../core/api-keys.js';
import { readNextDue } from '../core/due-work.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Ledger } from './ledger.js';

/** How long a deposit stays inside the reversal window. */
export const REVERSAL_WINDOW_MS = 72 * 3_600_000;

/** Unsettled deposits and their settlement. */
export class Settlement {
  constructor(
    private readonly db: Database,
    private readonly units: UnitOfWorkRunner,
    private readonly ledger: Ledger,
  ) {}

  /** Records an unsettled deposit in the unit of work; it settles after the reversal window. */
  async hold(uow: UnitOfWork, accountId: string, amountCents: number): Promise<void> {
    if (amountCents <= 0) return;
    await uow.tx.run(
      'INSERT INTO unsettled_deposits VALUES ($id, $account, $amount, make_timestamp($at * 1000), NULL)',
      {
        id: `dep_${randomId(16)}`,
        account: accountId,
        amount: amountCents,
        at: uow.now + REVERSAL_WINDOW_MS,
      },
    );
  }

  /** When the next deposit from `from` on settles, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return readNextDue(
      this.db,
      `SELECT min(settles_at) AS due FROM unsettled_deposits
       WHERE settled_at IS NULL AND settles_at >= make_timestamp($from * 1000)`,
      { from },
    );
  }

  /** Settles every deposit whose window has ended by `now`, each in its own unit of work. */
  async runDue(now: number): Promise<void> {
    const due = await this.db.read<{ id: string; account_id: string; amount_cents: number }>(
      `SELECT id, account_id, amount_cents FROM unsettled_deposits
       WHERE settled_at IS NULL AND settles_at <= make_timestamp($now * 1000) ORDER BY settles_at`,
      { now },
    );
    for (const row of due) {
      await this.units.run(async (uow) => {
        await this.ledger.settle(uow, String(row.account_id), Number(row.amount_cents));
        await uow.tx.run(
          'UPDATE unsettled_deposits SET settled_at = make_timestamp($now * 1000) WHERE id = $id',
          {
            id: String(row.id),
            now: uow.now,
          },
        );
      });
    }
  }
}
