/** GET /balance and GET /transactions: the account's money and its ledger. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { balanceSchema, transactionPageSchema, transactionsQuerySchema } from '../../../contract/account.js';
import { ApiError } from '../../../contract/api-error.js';
import { centsToUsd } from '../../../contract/common.js';
import type { ServiceContext } from '../../context.js';
import { authOf } from '../authenticate.js';
import { AUTH_ERRORS, errorResponses } from '../openapi.js';

/** Registers the account routes. */
export function registerAccountRoutes(app: FastifyInstance, context: ServiceContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/balance',
    {
      schema: {
        summary: 'Balance, settled funds and trading status (open before funding)',
        tags: ['account'],
        response: { 200: balanceSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { account, key } = authOf(request);
      return {
        balance_usd: centsToUsd(account.balanceCents),
        settled_usd: centsToUsd(account.settledCents),
        pending_usd: centsToUsd(account.balanceCents - account.settledCents),
        currency: 'USD' as const,
        trading_enabled: key.trading,
        account_status: account.status,
        autoclaim: account.autoclaim,
      };
    },
  );
  api.get(
    '/transactions',
    {
      schema: {
        summary: 'Balance ledger, newest first',
        tags: ['account'],
        querystring: transactionsQuerySchema,
        response: { 200: transactionPageSchema, ...errorResponses(...AUTH_ERRORS, 'invalid_param') },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const { limit = 50, type, from, to, cursor } = request.query;
      const before = cursor === undefined ? null : parseSeqCursor(cursor);
      const rows = await context.db.read<Record<string, unknown>>(
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
        {
          account: account.id,
          type: type ?? null,
          from: from ?? null,
          to: to ?? null,
          before,
          limit: limit + 1,
        },
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map((r) => ({
          id: String(r.id),
          type: r.type as never,
          amount_usd: centsToUsd(Number(r.amount)),
          balance_after_usd: centsToUsd(Number(r.after)),
          order_id: r.order_id === null ? null : String(r.order_id),
          description: String(r.description),
          created_at: new Date(Number(r.at)).toISOString(),
        })),
        meta: { next_cursor: rows.length > limit && last ? seqCursor(Number(last.seq)) : null },
      };
    },
  );
}

function seqCursor(seq: number): string {
  return Buffer.from(`t:${seq}`).toString('base64url');
}

function parseSeqCursor(cursor: string): number {
  const match = /^t:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match)
    throw new ApiError(
      'invalid_param',
      'cursor is not one this endpoint gave; pass meta.next_cursor back unchanged',
    );
  return Number(match[1]);
}
