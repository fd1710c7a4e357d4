/** The accounts feature's operations: accounts, keys and deposits, each one unit of work. */

import type { Database } from '../../shared/database.js';
import { randomId } from '../core/api-keys.js';
import type { Account, ApiKeyRecord, CallerDirectory } from '../core/caller.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { type AccountSettings, AccountStore } from './account-store.js';
import { IncomingFunds } from './incoming-funds.js';
import { KeyStore, type NewKeyOptions } from './key-store.js';
import { Ledger } from './ledger.js';
import { Settlement } from './settlement.js';

/** What a new account starts with. */
export interface NewAccountOptions extends NewKeyOptions {
  label?: string;
  /** Label of the first key. @default 'default' */
  keyLabel?: string;
  balanceCents?: number;
  /** Settled part of the opening balance. @default all of it */
  settledCents?: number;
  appIds: number[];
  instantSell?: boolean;
  externalBuy?: boolean;
  steamId?: string | null;
  autoclaim?: boolean;
}

/** Accounts, their keys and their ledger, with the directory the access checks read. */
export class Accounts implements CallerDirectory {
  readonly store = new AccountStore();
  readonly keys = new KeyStore();
  readonly ledger = new Ledger(this.store);
  readonly settlement: Settlement;
  /** Money owed to accounts outside their balance (shown by GET /balance as pending, never spendable). */
  readonly incoming = new IncomingFunds();

  constructor(
    db: Database,
    private readonly units: UnitOfWorkRunner,
  ) {
    this.settlement = new Settlement(db, units, this.ledger);
  }

  /** Loads every account and key into memory. */
  async load(db: Database): Promise<void> {
    await this.store.load(db);
    await this.keys.load(db);
  }

  /** The key with this id, or undefined (the access checks' look-up). */
  key(id: string): ApiKeyRecord | undefined {
    return this.keys.key(id);
  }

  /** The account with this id, or undefined (the access checks' look-up). */
  account(id: string): Account | undefined {
    return this.store.account(id);
  }

  /** Changes an account's settings in the unit of work (the trading feature's account port). */
  update(uow: UnitOfWork, id: string, settings: AccountSettings): Promise<Account> {
    return this.store.update(uow, id, settings);
  }

  /** Creates an account with a first key; an opening balance is posted as a deposit. */
  createAccount(
    options: NewAccountOptions,
  ): Promise<{ account: Account; key: ApiKeyRecord; rawKey: string }> {
    return this.units.run(async (uow) => {
      const account: Account = {
        id: `acc_${randomId()}`,
        label: options.label ?? 'sandbox account',
        status: 'active',
        balanceCents: 0,
        settledCents: 0,
        autoclaim: options.autoclaim ?? false,
        appIds: options.appIds,
        instantSell: options.instantSell ?? false,
        externalBuy: options.externalBuy ?? false,
        steamId: options.steamId ?? null,
        createdAt: uow.now,
        ledgerSeq: 0,
      };
      await this.store.insert(uow, account);
      const balance = options.balanceCents ?? 0;
      if (balance > 0) {
        const settled = Math.min(options.settledCents ?? balance, balance);
        await this.ledger.post(uow, deposit(account.id, balance, settled, 'opening balance'));
        await this.settlement.hold(uow, account.id, balance - settled);
      }
      const { key, rawKey } = await this.keys.insert(uow, account.id, {
        ...keyOptionsOf(options),
        label: options.keyLabel ?? 'default',
      });
      return { account: this.store.requireIn(uow, account.id), key, rawKey };
    });
  }

  /** Adds a key to an account; the raw key is returned once. */
  createKey(accountId: string, options: NewKeyOptions): Promise<{ key: ApiKeyRecord; rawKey: string }> {
    this.store.require(accountId);
    return this.units.run((uow) => this.keys.insert(uow, accountId, options));
  }

  /** Revokes a key; it answers 401 invalid_api_key from then on. */
  revokeKey(keyId: string): Promise<ApiKeyRecord> {
    return this.units.run((uow) => this.keys.revoke(uow, keyId));
  }

  /** Credits a deposit, settled at once or still inside the reversal window. */
  async fund(accountId: string, amountCents: number, settled: boolean): Promise<Account> {
    this.store.require(accountId);
    await this.units.run(async (uow) => {
      await this.ledger.post(
        uow,
        deposit(accountId, amountCents, settled ? amountCents : 0, 'sandbox deposit'),
      );
      if (!settled) await this.settlement.hold(uow, accountId, amountCents);
    });
    return this.store.require(accountId);
  }
}

function deposit(accountId: string, amountCents: number, settledCents: number, description: string) {
  return {
    accountId,
    type: 'deposit' as const,
    amountCents,
    settledDeltaCents: settledCents,
    orderId: null,
    description,
  };
}

function keyOptionsOf(options: NewKeyOptions): NewKeyOptions {
  const picked: NewKeyOptions = {};
  if (options.trading !== undefined) picked.trading = options.trading;
  if (options.ipAllowlist !== undefined) picked.ipAllowlist = options.ipAllowlist;
  return picked;
}
