/**
 * Accounts and API keys: durable in DuckDB, mirrored in memory so that authenticating a request
 * never waits on the database. The service is the only writer, so the mirror stays exact.
 */
import { ApiError } from '../../contract/api-error.js';
import { generateApiKey, randomId } from '../auth/api-keys.js';
import type { Clock } from '../clock.js';
import type { Database } from './database.js';
import { appendLedgerRow, centsToDecimal, type LedgerType } from './ledger.js';

/** An account as the service holds it; money in integer cents. */
export interface Account {
  id: string;
  label: string;
  status: 'active' | 'restricted';
  balanceCents: number;
  settledCents: number;
  autoclaim: boolean;
  appIds: number[];
  instantSell: boolean;
  externalBuy: boolean;
  steamId: string | null;
  createdAt: number;
  ledgerSeq: number;
}

/** An API key record (the hash only, never the raw key). */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  hash: string;
  label: string;
  trading: boolean;
  ipAllowlist: string[];
  createdAt: number;
  revokedAt: number | null;
}

/** What a new account starts with. */
export interface NewAccountOptions {
  label?: string;
  /** Label of the first key. @default 'default' */
  keyLabel?: string;
  balanceCents?: number;
  settledCents?: number;
  trading?: boolean;
  ipAllowlist?: string[];
  appIds: number[];
  instantSell?: boolean;
  externalBuy?: boolean;
  steamId?: string | null;
  autoclaim?: boolean;
}

/** What a new key is allowed. */
export interface NewKeyOptions {
  label?: string;
  trading?: boolean;
  ipAllowlist?: string[];
}

/** Accounts and keys with their in-memory mirror. */
export class AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly keys = new Map<string, ApiKeyRecord>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Loads every account and key into memory. */
  async load(): Promise<void> {
    const accounts = await this.db.all<Record<string, unknown>>(
      `SELECT a.*, CAST(balance_usd * 100 AS BIGINT) AS balance_cents, CAST(settled_usd * 100 AS BIGINT) AS settled_cents,
              epoch_ms(created_at) AS created_ms,
              (SELECT coalesce(max(seq), 0) FROM ledger l WHERE l.account_id = a.id) AS ledger_seq
       FROM accounts a`,
    );
    for (const row of accounts) this.accounts.set(String(row.id), accountFromRow(row));
    const keys = await this.db.all<Record<string, unknown>>(
      'SELECT *, epoch_ms(created_at) AS created_ms, epoch_ms(revoked_at) AS revoked_ms FROM api_keys',
    );
    for (const row of keys) this.keys.set(String(row.id), keyFromRow(row));
  }

  /** The account with this id, or undefined. */
  account(id: string): Account | undefined {
    return this.accounts.get(id);
  }

  /** The key with this id (revoked ones included), or undefined. */
  key(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  /** Every key of an account, oldest first. */
  keysOf(accountId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => k.accountId === accountId);
  }

  /** Every account, oldest first. */
  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }

  /** Creates an account with a first key; an opening balance is written to the ledger as a deposit. */
  async createAccount(
    options: NewAccountOptions,
  ): Promise<{ account: Account; key: ApiKeyRecord; rawKey: string }> {
    const now = this.clock.now();
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
      createdAt: now,
      ledgerSeq: 0,
    };
    const balance = options.balanceCents ?? 0;
    const settled = Math.min(options.settledCents ?? balance, balance);
    const { key, rawKey } = await this.db.transaction(async (db) => {
      await db.run(
        `INSERT INTO accounts (id, label, status, autoclaim, app_ids, instant_sell, external_buy, steam_id, created_at)
         VALUES ($id, $label, 'active', $autoclaim, $app_ids::INTEGER[], $instant_sell, $external_buy, $steam_id, make_timestamp($now * 1000))`,
        {
          id: account.id,
          label: account.label,
          autoclaim: account.autoclaim,
          app_ids: `[${account.appIds.join(',')}]`,
          instant_sell: account.instantSell,
          external_buy: account.externalBuy,
          steam_id: account.steamId,
          now,
        },
      );
      if (balance > 0) await this.credit(db, account, balance, settled, 'deposit', 'opening balance');
      return this.insertKey(db, account.id, { label: 'default', ...pickKeyOptions(options) });
    });
    this.accounts.set(account.id, account);
    this.keys.set(key.id, key);
    return { account, key, rawKey };
  }

  /** Adds a key to an account; the raw key is returned once. */
  async createKey(accountId: string, options: NewKeyOptions): Promise<{ key: ApiKeyRecord; rawKey: string }> {
    this.requireAccount(accountId);
    const created = await this.db.transaction((db) => this.insertKey(db, accountId, options));
    this.keys.set(created.key.id, created.key);
    return created;
  }

  /** Revokes a key; it answers 401 invalid_api_key from then on. Revoking twice is harmless. */
  async revokeKey(keyId: string): Promise<ApiKeyRecord> {
    const key = this.keys.get(keyId);
    if (!key) throw new ApiError('not_found', `no key ${keyId}`);
    if (key.revokedAt !== null) return key;
    const now = this.clock.now();
    await this.db.transaction((tx) =>
      tx.run('UPDATE api_keys SET revoked_at = make_timestamp($now * 1000) WHERE id = $id', {
        id: keyId,
        now,
      }),
    );
    key.revokedAt = now;
    return key;
  }

  /** Credits a deposit to the balance, settled at once or still inside the reversal window. */
  async fund(accountId: string, amountCents: number, settled: boolean): Promise<Account> {
    const account = this.requireAccount(accountId);
    const next = { ...account };
    await this.db.transaction((db) =>
      this.credit(db, next, amountCents, settled ? amountCents : 0, 'deposit', 'sandbox deposit'),
    );
    Object.assign(account, next);
    return account;
  }

  /** The account or a 404. */
  requireAccount(id: string): Account {
    const account = this.accounts.get(id);
    if (!account) throw new ApiError('not_found', `no account ${id}`);
    return account;
  }

  private async credit(
    db: Database,
    account: Account,
    amountCents: number,
    settledCents: number,
    type: LedgerType,
    description: string,
  ): Promise<void> {
    account.balanceCents += amountCents;
    account.settledCents += settledCents;
    account.ledgerSeq += 1;
    await db.run(
      'UPDATE accounts SET balance_usd = $balance::DECIMAL(18,2), settled_usd = $settled::DECIMAL(18,2) WHERE id = $id',
      {
        id: account.id,
        balance: centsToDecimal(account.balanceCents),
        settled: centsToDecimal(account.settledCents),
      },
    );
    await appendLedgerRow(db, {
      accountId: account.id,
      seq: account.ledgerSeq,
      type,
      amountCents,
      balanceAfterCents: account.balanceCents,
      orderId: null,
      description,
      at: this.clock.now(),
    });
  }

  private async insertKey(
    db: Database,
    accountId: string,
    options: NewKeyOptions,
  ): Promise<{ key: ApiKeyRecord; rawKey: string }> {
    const generated = generateApiKey();
    const key: ApiKeyRecord = {
      id: generated.id,
      accountId,
      hash: generated.hash,
      label: options.label ?? 'default',
      trading: options.trading ?? false,
      ipAllowlist: options.ipAllowlist ?? [],
      createdAt: this.clock.now(),
      revokedAt: null,
    };
    await db.run(
      `INSERT INTO api_keys (id, account_id, key_hash, label, trading, ip_allowlist, created_at)
       VALUES ($id, $account_id, $hash, $label, $trading, $allowlist::VARCHAR[], make_timestamp($now * 1000))`,
      {
        id: key.id,
        account_id: accountId,
        hash: key.hash,
        label: key.label,
        trading: key.trading,
        allowlist: JSON.stringify(key.ipAllowlist),
        now: key.createdAt,
      },
    );
    return { key, rawKey: generated.raw };
  }
}

function pickKeyOptions(options: NewAccountOptions): NewKeyOptions {
  const picked: NewKeyOptions = {};
  if (options.keyLabel !== undefined) picked.label = options.keyLabel;
  if (options.trading !== undefined) picked.trading = options.trading;
  if (options.ipAllowlist !== undefined) picked.ipAllowlist = options.ipAllowlist;
  return picked;
}

function accountFromRow(row: Record<string, unknown>): Account {
  return {
    id: String(row.id),
    label: String(row.label),
    status: row.status === 'restricted' ? 'restricted' : 'active',
    balanceCents: Number(row.balance_cents),
    settledCents: Number(row.settled_cents),
    autoclaim: Boolean(row.autoclaim),
    appIds: (row.app_ids as number[]).map(Number),
    instantSell: Boolean(row.instant_sell),
    externalBuy: Boolean(row.external_buy),
    steamId: row.steam_id === null ? null : String(row.steam_id),
    createdAt: Number(row.created_ms),
    ledgerSeq: Number(row.ledger_seq),
  };
}

function keyFromRow(row: Record<string, unknown>): ApiKeyRecord {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    hash: String(row.key_hash),
    label: String(row.label),
    trading: Boolean(row.trading),
    ipAllowlist: (row.ip_allowlist as string[]).map(String),
    createdAt: Number(row.created_ms),
    revokedAt: row.revoked_ms === null ? null : Number(row.revoked_ms),
  };
}
