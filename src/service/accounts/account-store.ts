/** Accounts: durable in DuckDB, mirrored in memory; balances change only through the ledger. */

import { z } from 'zod';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRows } from '../../shared/row-schema.js';
import type { Account } from '../core/caller.js';
import { refuse } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** Account settings that can change after creation (balances belong to the ledger). */
export type AccountSettings = Partial<
  Pick<Account, 'status' | 'autoclaim' | 'instantSell' | 'externalBuy' | 'steamId'>
>;

const SETTING_COLUMNS: Record<keyof AccountSettings, string> = {
  status: 'status',
  autoclaim: 'autoclaim',
  instantSell: 'instant_sell',
  externalBuy: 'external_buy',
  steamId: 'steam_id',
};

/** Every account, with the in-memory mirror the access checks read. */
export class AccountStore {
  private readonly accounts = new Map<string, Account>();
  /** Accounts inserted in a transaction that has not committed yet. */
  private readonly staged = new WeakMap<object, Map<string, Account>>();

  /** Loads every account into memory. */
  async load(db: Database): Promise<void> {
    const rows = await db.all(
      `SELECT a.*, CAST(balance_usd * 100 AS BIGINT) AS balance_cents, CAST(settled_usd * 100 AS BIGINT) AS settled_cents,
              epoch_ms(created_at) AS created_ms,
              (SELECT coalesce(max(seq), 0) FROM ledger l WHERE l.account_id = a.id) AS ledger_seq
       FROM accounts a`,
    );
    for (const account of parseRows(accountRowSchema, rows, 'accounts'))
      this.accounts.set(account.id, account);
  }

  /** The account with this id, or undefined. */
  account(id: string): Account | undefined {
    return this.accounts.get(id);
  }

  /** The account with this id, or 404 not_found. */
  require(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw refuse('not_found', `no account ${id}`);
    return account;
  }

  /** The account as a unit of work sees it (its own inserts included), or a refusal. */
  requireIn(uow: UnitOfWork, id: string): Account {
    return this.staged.get(uow.batch)?.get(id) ?? this.require(id);
  }

  /** Every account, oldest first. */
  all(): Account[] {
    return [...this.accounts.values()];
  }

  /** Inserts a new account (with zero balances) in the unit of work. */
  async insert(uow: UnitOfWork, account: Account): Promise<void> {
    await uow.tx.run(
      `INSERT INTO accounts (id, label, status, autoclaim, app_ids, instant_sell, external_buy, steam_id, created_at)
       VALUES ($id, $label, $status, $autoclaim, $app_ids::INTEGER[], $instant_sell, $external_buy, $steam_id, make_timestamp($now * 1000))`,
      {
        id: account.id,
        label: account.label,
        status: account.status,
        autoclaim: account.autoclaim,
        app_ids: `[${account.appIds.join(',')}]`,
        instant_sell: account.instantSell,
        external_buy: account.externalBuy,
        steam_id: account.steamId,
        now: account.createdAt,
      },
    );
    const created = { ...account, balanceCents: 0, settledCents: 0, ledgerSeq: 0 };
    const staged = this.staged.get(uow.batch) ?? new Map<string, Account>();
    staged.set(created.id, created);
    this.staged.set(uow.batch, staged);
    uow.afterCommit(() => this.accounts.set(created.id, created));
  }

  /** Changes settings of an account in the unit of work; the mirror follows the commit. */
  async update(uow: UnitOfWork, id: string, settings: AccountSettings): Promise<Account> {
    const account = this.require(id);
    const entries = Object.entries(settings).filter(([, v]) => v !== undefined) as [
      keyof AccountSettings,
      unknown,
    ][];
    if (entries.length === 0) return account;
    const assignments = entries.map(([name]) => `${SETTING_COLUMNS[name]} = $${name}`).join(', ');
    await uow.tx.run(`UPDATE accounts SET ${assignments} WHERE id = $id`, {
      id,
      ...(Object.fromEntries(entries) as Record<string, string | boolean | null>),
    });
    uow.afterCommit(() => Object.assign(account, Object.fromEntries(entries)));
    return { ...account, ...Object.fromEntries(entries) };
  }
}

/** A row of `accounts` with its money in cents, its times in epoch ms and its last ledger seq, as the account. */
const accountRowSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    status: z.enum(['active', 'restricted']),
    balance_cents: bigintColumn,
    settled_cents: bigintColumn,
    autoclaim: z.boolean(),
    app_ids: z.array(z.number()),
    instant_sell: z.boolean(),
    external_buy: z.boolean(),
    steam_id: z.string().nullable(),
    created_ms: bigintColumn,
    ledger_seq: bigintColumn,
  })
  .transform(
    (row): Account => ({
      id: row.id,
      label: row.label,
      status: row.status,
      balanceCents: row.balance_cents,
      settledCents: row.settled_cents,
      autoclaim: row.autoclaim,
      appIds: row.app_ids,
      instantSell: row.instant_sell,
      externalBuy: row.external_buy,
      steamId: row.steam_id,
      createdAt: row.created_ms,
      ledgerSeq: row.ledger_seq,
    }),
  );
