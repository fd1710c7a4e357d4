/** The account: balance with settled funds and trading status, and the balance ledger. */
import { z } from 'zod';
import { cursorSchema, queryInteger, timestampSchema, usdSchema } from './common.js';

/**
 * The balance (response fields designed here; the specification names balance_usd and
 * settled_usd in error bodies). Settled funds are the part outside the reversal window.
 */
export const balanceSchema = z
  .object({
    account_id: z
      .string()
      .optional()
      .meta({ description: 'the account the key belongs to (added in v1; older deployments omit it)' }),
    balance_usd: usdSchema.meta({ description: 'total balance' }),
    settled_usd: usdSchema.meta({ description: 'part of the balance outside the reversal window' }),
    pending_usd: usdSchema.meta({ description: 'balance_usd minus settled_usd' }),
    pending_sale_usd: usdSchema.meta({
      description:
        'Instant Sell credit received by the bots and still inside the trade protection: not part of balance_usd and cannot fund an order; paid to the balance, settled, when the protection clears',
    }),
    currency: z.literal('USD'),
    trading_enabled: z.boolean().meta({ description: 'whether the calling key may place orders' }),
    account_status: z.enum(['active', 'restricted']),
    autoclaim: z
      .boolean()
      .meta({ description: 'held orders are released automatically when the hold clears' }),
  })
  .meta({ id: 'Balance' });
export type Balance = z.infer<typeof balanceSchema>;

/** Ledger row types a client can filter on; the ledger also writes `adjustment` rows. */
export const TRANSACTION_TYPES = [
  'purchase',
  'refund',
  'sale',
  'deposit',
  'withdrawal',
  'bonus',
  'fee',
] as const;
export const transactionTypeSchema = z.enum([...TRANSACTION_TYPES, 'adjustment']);

/** One movement on the balance (fields beyond type and order_id designed here). */
export const transactionSchema = z
  .object({
    id: z.string(),
    type: transactionTypeSchema,
    amount_usd: usdSchema.meta({ description: 'signed: credits positive, debits negative' }),
    balance_after_usd: usdSchema,
    order_id: z.string().nullable(),
    description: z.string(),
    created_at: timestampSchema,
  })
  .meta({ id: 'Transaction' });
export type Transaction = z.infer<typeof transactionSchema>;

/** Query of `GET /transactions`; `from` and `to` are Unix seconds, inclusive. */
export const transactionsQuerySchema = z.object({
  limit: queryInteger(1, 100).optional().meta({ description: '1-100, default 50' }),
  type: z.enum(TRANSACTION_TYPES).optional(),
  from: queryInteger(0, 1e11).optional().meta({ description: 'Unix seconds; entries created at or after' }),
  to: queryInteger(0, 1e11).optional().meta({ description: 'Unix seconds; entries created at or before' }),
  cursor: cursorSchema.optional(),
});
export type TransactionsQuery = z.infer<typeof transactionsQuerySchema>;

export const transactionPageSchema = z
  .object({
    data: z.array(transactionSchema),
    meta: z.object({ next_cursor: z.string().nullable() }),
  })
  .meta({ id: 'TransactionPage' });
