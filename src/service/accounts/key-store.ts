/** API keys: durable in DuckDB, mirrored in memory so that authenticating never waits on the database. */

import { z } from 'zod';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRows } from '../../shared/row-schema.js';
import { generateApiKey } from '../core/api-keys.js';
import type { ApiKeyRecord } from '../core/caller.js';
import { refuse } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** What a new key is allowed. */
export interface NewKeyOptions {
  /** @default 'default' */
  label?: string;
  /** @default false */
  trading?: boolean;
  /** CIDRs; empty means any address. @default [] */
  ipAllowlist?: string[];
}

/** The keys of every account. The service is the only writer, so the mirror stays exact. */
export class KeyStore {
  private readonly keys = new Map<string, ApiKeyRecord>();

  /** Loads every key into memory. */
  async load(db: Database): Promise<void> {
    const rows = await db.all(
      'SELECT *, epoch_ms(created_at) AS created_ms, epoch_ms(revoked_at) AS revoked_ms FROM api_keys',
    );
    for (const key of parseRows(keyRowSchema, rows, 'api_keys')) this.keys.set(key.id, key);
  }

  /** The key with this id (revoked ones included), or undefined. */
  key(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  /** The key with this id, or 404 not_found. */
  require(id: string): ApiKeyRecord {
    const key = this.keys.get(id);
    if (!key) throw refuse('not_found', `no key ${id}`);
    return key;
  }

  /** Every key of an account, oldest first. */
  keysOf(accountId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => k.accountId === accountId);
  }

  /** Inserts a new key in the unit of work; the raw key is returned once and never stored. */
  async insert(
    uow: UnitOfWork,
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
      createdAt: uow.now,
      revokedAt: null,
    };
    await uow.tx.run(
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
    uow.afterCommit(() => this.keys.set(key.id, key));
    return { key, rawKey: generated.raw };
  }

  /** Revokes a key in the unit of work; revoking twice is harmless. */
  async revoke(uow: UnitOfWork, keyId: string): Promise<ApiKeyRecord> {
    const key = this.require(keyId);
    if (key.revokedAt !== null) return key;
    await uow.tx.run('UPDATE api_keys SET revoked_at = make_timestamp($now * 1000) WHERE id = $id', {
      id: keyId,
      now: uow.now,
    });
    uow.afterCommit(() => {
      key.revokedAt = uow.now;
    });
    return { ...key, revokedAt: uow.now };
  }
}

/** A row of `api_keys` with its times in epoch ms, as the key it stores. */
const keyRowSchema = z
  .object({
    id: z.string(),
    account_id: z.string(),
    key_hash: z.string(),
    label: z.string(),
    trading: z.boolean(),
    ip_allowlist: z.array(z.string()),
    created_ms: bigintColumn,
    revoked_ms: bigintColumn.nullable(),
  })
  .transform(
    (row): ApiKeyRecord => ({
      id: row.id,
      accountId: row.account_id,
      hash: row.key_hash,
      label: row.label,
      trading: row.trading,
      ipAllowlist: row.ip_allowlist,
      createdAt: row.created_ms,
      revokedAt: row.revoked_ms,
    }),
  );
