/** GET /balance and GET /transactions: the account's money and its ledger. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { balanceSchema, transactionPageSchema, transactionsQuerySchema } from '../../contract/account.js';
import { centsToUsd } from '../../contract/common.js';
import type { Database } from '../../shared/database.js';
import { authOf } from '../http/authenticate.js';
import { AUTH_ERRORS, errorResponses } from '../http/openapi.js';
import type { IncomingFunds } from './incoming-funds.js';
import { readTransactions } from './transactions-query.js';

/** Registers the account routes. */
export function registerAccountRoutes(app: FastifyInstance, db: Database, incoming: IncomingFunds): void {
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
        account_id: account.id,
        balance_usd: centsToUsd(account.balanceCents),
        settled_usd: centsToUsd(account.settledCents),
        pending_usd: centsToUsd(account.balanceCents - account.settledCents),
        pending_sale_usd: centsToUsd(await incoming.of(account.id)),
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
    async (request) => readTransactions(db, authOf(request).account.id, request.query),
  );
}
