/** Reading the ledger for GET /transactions: newest first, filtered, keyset-paged by sequence. */

import { z } from 'zod';
import { transactionTypeSchema } from '../../contract/account.js';
import { centsToUsd } from '../../contract/common.js';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRows } from '../../shared/row-schema.js';
import { refuse } from '../core/refuse.js';
import { parseSeqCursor, seqCursor } from '../http/seq-cursor.js';

/** The validated query of GET /transactions. */
export interface TransactionsQuery {
  limit?: number | undefined;
  type?: string | undefined;
  /** Unix seconds, inclusive. */
  from?: number | undefined;
  /** Unix seconds, inclusive. */
  to?: number | undefined;
  cursor?: string | undefined;
}

/** A ledger row as the page reads it (cents, epoch ms), as the Transaction it answers and its seq. */
const ledgerRowSchema = z
  .object({
    id: z.string(),
    type: transactionTypeSchema,
    amount: bigintColumn,
    after: bigintColumn,
    order_id: z.string().nullable(),
    description: z.string(),
    at: bigintColumn,
    seq: bigintColumn,
  })
  .transform((row) => ({
    id: row.id,
    type: row.type,
    amount_usd: centsToUsd(row.amount),
    balance_after_usd: centsToUsd(row.after),
    order_id: row.order_id,
    description: row.description,
    created_at: new Date(row.at).toISOString(),
    seq: row.seq,
  }));

/** One page of an account's ledger in the contract's shape. */
export async function readTransactions(db: Database, accountId: string, query: TransactionsQuery) {
  const { limit = 50, type, from, to, cursor } = query;
  if (from !== undefined && to !== undefined && from > to)
    throw refuse('invalid_param', `from (${from}) is after to (${to})`);
  const before = cursor === undefined ? null : parseSeqCursor('t', cursor);
  const read = await db.read(
    `SELECT id, type, CAST(amount_usd * 100 AS BIGINT) AS amount, CAST(balance_after_usd * 100 AS BIGINT) AS after,
            order_id, description, epoch_ms(created_at) AS at, seq
     FROM ledger
     WHERE account_id = $account
       AND ($type IS NULL OR type = $type)
       AND ($from IS NULL OR created_at >= make_timestamp(CAST($from AS BIGINT) * 1000000))
       AND ($to IS NULL OR created_at <= make_timestamp(CAST($to AS BIGINT) * 1000000 + 999999))
       AND ($before IS NULL OR seq < $before)
     ORDER BY seq DESC
     LIMIT $limit`,
    { account: accountId, type: type ?? null, from: from ?? null, to: to ?? null, before, limit: limit + 1 },
  );
  const rows = parseRows(ledgerRowSchema, read, 'ledger');
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(({ seq: _seq, ...transaction }) => transaction),
    meta: { next_cursor: rows.length > limit && last ? seqCursor('t', last.seq) : null },
  };
}
