/**
 * Idempotent order creation: a key is claimed in memory for the one request running with it, the
 * receipt of its order (the order as first answered) is stored in the order's own row, in the same
 * transaction, and every later request with the key replays it, whatever its body (the
 * specification: repeating the same value replays the original order). A request refused before
 * any order exists stores nothing, so the key stays free for a retry once the cause is fixed.
 */
import type { Database } from '../../shared/database.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** What claiming a key may refuse with. */
export const KEY_ERRORS = ['idempotency_in_progress'] as const;

const refuse = refuseOnly(KEY_ERRORS);

/** The receipt stored with a key's order: the order as first answered, replayed byte for byte. */
export interface Replay {
  receipt: string;
}

/**
 * A claimed key: its request's fingerprint goes into the order row (a record of the request that
 * made the order; replays do not compare it); release when the request ends.
 */
export interface KeyClaim {
  readonly fingerprint: string;
  /** Marks the key as stored once the order's unit of work commits. */
  stored(uow: UnitOfWork): void;
  release(): void;
}

/** Claims and replays of idempotency keys, per account. */
export class IdempotencyKeys {
  private readonly running = new Set<string>();
  /** Every stored key (`account\nkey`): a new key, the common case, is answered without a read. */
  private readonly stored = new Set<string>();

  constructor(private readonly db: Database) {}

  /** Loads the stored keys. */
  async load(): Promise<void> {
    const rows = await this.db.all<{ slot: string }>(
      'SELECT account_id || chr(10) || custom_id AS slot FROM orders WHERE request_hash IS NOT NULL',
    );
    for (const row of rows) this.stored.add(String(row.slot));
  }

  /**
   * The stored receipt for the key (a replay, whatever the request now sent), or a claim on it.
   * Refuses a key whose request is still running (409 idempotency_in_progress).
   */
  async begin(accountId: string, key: string, fingerprint: string): Promise<Replay | KeyClaim> {
    const slot = `${accountId}\n${key}`;
    if (this.running.has(slot))
      throw refuse(
        'idempotency_in_progress',
        'a request with this key is still running; look the order up by custom_id before retrying',
      );
    this.running.add(slot);
    if (!this.stored.has(slot)) return this.claim(slot, fingerprint);
    try {
      const [stored] = await this.db.read<{ receipt: string }>(
        `SELECT response_body AS receipt FROM orders
         WHERE account_id = $account AND custom_id = $key AND request_hash IS NOT NULL`,
        { account: accountId, key },
      );
      if (stored) {
        this.running.delete(slot);
        return { receipt: String(stored.receipt) };
      }
    } catch (error) {
      this.running.delete(slot);
      throw error;
    }
    return this.claim(slot, fingerprint);
  }

  private claim(slot: string, fingerprint: string): KeyClaim {
    return {
      fingerprint,
      stored: (uow) => uow.afterCommit(() => this.stored.add(slot)),
      release: () => this.running.delete(slot),
    };
  }
}

/** True when `begin` answered with a stored receipt. */
export function isReplay(value: Replay | KeyClaim): value is Replay {
  return 'receipt' in value;
}
