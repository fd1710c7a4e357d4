/** Per-account trading settings (the verification threshold), durable and mirrored in memory. */
import type { Database } from '../../shared/database.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** The verification thresholds of the accounts that have one. */
export class TradingSettings {
  private readonly kyc = new Map<string, number>();

  constructor(private readonly db: Database) {}

  /** Loads every threshold. */
  async load(): Promise<void> {
    const rows = await this.db.all<{ account_id: string; kyc_threshold_cents: number | null }>(
      'SELECT account_id, kyc_threshold_cents FROM trading_settings WHERE kyc_threshold_cents IS NOT NULL',
    );
    for (const row of rows) this.kyc.set(String(row.account_id), Number(row.kyc_threshold_cents));
  }

  /** Cumulative purchases above this need verification; null when the account has no threshold. */
  kycThresholdCents(accountId: string): number | null {
    return this.kyc.get(accountId) ?? null;
  }

  /** Sets or clears (null) the account's threshold in the unit of work. */
  async setKycThreshold(uow: UnitOfWork, accountId: string, cents: number | null): Promise<void> {
    await uow.tx.run('INSERT OR REPLACE INTO trading_settings VALUES ($account, $cents)', {
      account: accountId,
      cents,
    });
    uow.afterCommit(() => (cents === null ? this.kyc.delete(accountId) : this.kyc.set(accountId, cents)));
  }
}
