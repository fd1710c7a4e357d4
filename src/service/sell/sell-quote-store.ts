/** Instant Sell quotes in DuckDB: each kept as the JSON it was answered with, binding until it expires. */
import type { SellQuote } from '../../contract/sell.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** A stored quote and who asked for it; times in epoch ms. */
export interface QuoteRecord {
  accountId: string;
  quote: SellQuote;
  expiresAt: number;
}

/** Reads and writes the sell_quotes table in the caller's unit of work. */
export class SellQuoteStore {
  /** Stores a quote made for an account. */
  async insert(uow: UnitOfWork, accountId: string, quote: SellQuote): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO sell_quotes (id, account_id, app_id, steam_id, quote, created_at, expires_at)
       VALUES ($id, $account, $app, $steam, $quote, make_timestamp($created * 1000), make_timestamp($expires * 1000))`,
      {
        id: quote.quote_id,
        account: accountId,
        app: quote.app_id,
        steam: quote.steam_id,
        quote: JSON.stringify(quote),
        created: Date.parse(quote.created_at),
        expires: Date.parse(quote.expires_at),
      },
    );
  }

  /** The quote as the unit of work sees it, or undefined. */
  async getIn(uow: UnitOfWork, id: string): Promise<QuoteRecord | undefined> {
    const rows = await uow.tx.all<{ account_id: string; quote: string; expires_ms: bigint | number }>(
      'SELECT account_id, quote, epoch_ms(expires_at) AS expires_ms FROM sell_quotes WHERE id = $id',
      { id },
    );
    const row = rows[0];
    if (!row) return undefined;
    return { accountId: row.account_id, quote: JSON.parse(row.quote), expiresAt: Number(row.expires_ms) };
  }
}
