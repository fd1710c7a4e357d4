/** Who a request acts as: the account and the key it presented, as the access checks resolved them. */

/** An account as the service holds it; money in integer cents. */
export interface Account {
  id: string;
  label: string;
  status: 'active' | 'restricted';
  balanceCents: number;
  /** Part of the balance outside the reversal window; never above `balanceCents`. */
  settledCents: number;
  autoclaim: boolean;
  appIds: number[];
  instantSell: boolean;
  externalBuy: boolean;
  /** The linked platform account, null when none is linked. */
  steamId: string | null;
  createdAt: number;
  /** Sequence of the account's last ledger row (0 before the first). */
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

/** The authenticated caller of a keyed route. */
export interface Caller {
  key: ApiKeyRecord;
  account: Account;
}

/** Finds keys and accounts for the access checks; the accounts feature provides it. */
export interface CallerDirectory {
  key(id: string): ApiKeyRecord | undefined;
  account(id: string): Account | undefined;
}
