/** Account: the balance with settled funds and trading status, and the balance ledger. */
import type { z } from 'zod';
import {
  type Balance,
  balanceSchema,
  type Transaction,
  transactionPageSchema,
} from '../../contract/account.js';
import { checkOptionalObject } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { metaPages, metaRows } from '../paginate.js';
import { type TransactionsParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** One page of `GET /transactions`. */
export type TransactionPage = z.infer<typeof transactionPageSchema>;

/** Balance and ledger over a shared {@link Transport}. */
export class AccountResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /balance`: balance, settled funds, trading status and (from newer deployments) the account id. */
  balance(options: RequestOptions = {}): Promise<Balance> {
    checkOptionalObject('account.balance', 'options', options);
    return this.transport.json({ path: '/balance', schema: balanceSchema, signal: options.signal });
  }

  /** `GET /transactions`: one page of the balance ledger, newest first. */
  transactions(query: TransactionsParams = {}, options: RequestOptions = {}): Promise<TransactionPage> {
    checkOptionalObject('account.transactions', 'query', query);
    checkOptionalObject('account.transactions', 'options', options);
    return this.transport.json({
      path: `/transactions${toQueryString(query)}`,
      schema: transactionPageSchema,
      signal: options.signal,
    });
  }

  /** Every page of `GET /transactions` from `query.cursor` (or the newest) to the oldest. */
  transactionPages(query: TransactionsParams = {}): AsyncGenerator<TransactionPage, void, undefined> {
    checkOptionalObject('account.transactionPages', 'query', query);
    return metaPages((q) => this.transactions(q), query);
  }

  /** Every ledger row matching `query`, newest first, across all pages. */
  allTransactions(query: TransactionsParams = {}): AsyncGenerator<Transaction, void, undefined> {
    checkOptionalObject('account.allTransactions', 'query', query);
    return metaRows((q) => this.transactions(q), query);
  }
}
