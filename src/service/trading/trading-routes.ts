/** The trading routes: POST /orders and /market/buy, reading orders, claims, and withdrawals (website only). */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { APP_IDS, DEFAULT_APP_ID, usdToCents } from '../../contract/common.js';
import {
  type CreateOrderBody,
  claimResponseSchema,
  createOrderBodySchema,
  marketBuyBodySchema,
  type Order,
  orderHeadersSchema,
  orderInfoQuerySchema,
  orderLookupQuerySchema,
  orderPageSchema,
  orderParamsSchema,
  orderSchema,
  ordersQuerySchema,
} from '../../contract/order.js';
import type { Account } from '../core/caller.js';
import type { Clock } from '../core/clock.js';
import { refuse } from '../core/refuse.js';
import { resolveAppId } from '../http/app-id.js';
import { authOf } from '../http/authenticate.js';
import { keysetPage, pageKeyset } from '../http/change-feed.js';
import type { ZodApi } from '../http/feature.js';
import { AUTH_ERRORS, documentedResponse, errorResponses } from '../http/openapi.js';
import type { BuyRequest } from './order-placement.js';
import { type OrderRecord, orderJson } from './order-record.js';
import type { TradePlatform } from './ports.js';
import { type Bought, BUY_ERRORS, ORDER_ERRORS, type Trading } from './trading.js';

/** The 201 of a buy: the order, first placed or replayed for its key. */
const ORDER_PLACED = documentedResponse({
  description: 'the order placed, or the first response replayed for a repeated Idempotency-Key / custom_id',
  body: orderSchema,
  headers: {
    'Idempotent-Replay': z
      .literal('true')
      .optional()
      .meta({ description: 'true when the response is the replay of a repeated key; absent on the first' }),
  },
});

/** What the trading routes answer with. */
interface RouteDeps {
  trading: Trading;
  platform: TradePlatform;
  /** An order as answered now. */
  view: (order: OrderRecord) => Order;
}

/** Registers the trading routes. */
export function registerTradingRoutes(
  app: FastifyInstance,
  trading: Trading,
  platform: TradePlatform,
  clock: Clock,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const deps: RouteDeps = { trading, platform, view: (order) => orderJson(order, clock.now()) };
  createOrder(api, deps);
  buyForTradeUrl(api, deps);
  listOrders(api, deps);
  getOrderByCustomId(api, deps);
  getOrder(api, deps);
  claimOrder(api, deps);
  refuseWithdrawals(api);
}

/** POST /orders: buys listings of one game, delivered to the key owner. */
function createOrder(api: ZodApi, { trading }: RouteDeps): void {
  api.post(
    '/orders',
    {
      config: { access: 'trading', rate: 'orders', requires: ['active_account', 'platform_account'] },
      schema: {
        operationId: 'createOrder',
        summary: 'Buy listings of one game from the balance, delivered to the key owner',
        description:
          'Idempotent on the Idempotency-Key header or custom_id (one value; both sent must be equal). The same key replays the first response byte for byte (201, Idempotent-Replay: true), whatever the body sent with it, as the specification says (repeating the same value replays the original order); while the first runs, 409 idempotency_in_progress. A refusal before an order exists leaves the key free; 504 upstream_timeout binds it to the order decided behind the scenes.',
        tags: ['trading'],
        headers: orderHeadersSchema,
        body: createOrderBodySchema,
        response: {
          201: ORDER_PLACED,
          ...errorResponses(...AUTH_ERRORS, 'invalid_request', ...BUY_ERRORS.order),
        },
      },
    },
    async (request, reply) => {
      const { account } = authOf(request);
      const { body } = request;
      const appId = body.appId ?? DEFAULT_APP_ID;
      const { custom_id: _, ...rest } = body;
      const buy = buyRequest(account, request.headers['idempotency-key'], body, {
        kind: 'order',
        appId,
        recipient: () => account.steamId,
        fingerprint: ['POST /orders', { ...rest, appId }],
      });
      return sendBought(reply, await trading.buy(buy));
    },
  );
}

/** POST /market/buy: buys CS2 listings for an end user by trade URL. */
function buyForTradeUrl(api: ZodApi, { trading, platform }: RouteDeps): void {
  api.post(
    '/market/buy',
    {
      config: { access: 'trading', rate: 'orders', requires: ['active_account', 'cs2', 'external_buy'] },
      schema: {
        operationId: 'buyForTradeUrl',
        summary: 'Buy CS2 listings for an end user by trade URL (settled funds only)',
        description:
          'Needs deliver-to-any-trade-URL buying enabled on the account. Idempotent like POST /orders. The partner and token of the trade URL are checked; a malformed or private one is 400 invalid_trade_url.',
        tags: ['trading'],
        headers: orderHeadersSchema,
        body: marketBuyBodySchema,
        response: {
          201: ORDER_PLACED,
          ...errorResponses(...AUTH_ERRORS, 'invalid_request', 'invalid_trade_url', ...BUY_ERRORS.market_buy),
        },
      },
    },
    async (request, reply) => {
      const { account } = authOf(request);
      const { body } = request;
      // appId is ignored, so it is no part of what tells two bodies apart either.
      const { custom_id: _, appId: _ignored, ...rest } = body;
      const buy = buyRequest(account, request.headers['idempotency-key'], body, {
        kind: 'market_buy',
        appId: APP_IDS.cs2,
        recipient: () => {
          const recipient = platform.resolveTradeUrl(body.trade_url);
          if ('problem' in recipient) throw refuse('invalid_trade_url', recipient.problem);
          return recipient.steamId;
        },
        fingerprint: ['POST /market/buy', rest],
      });
      return sendBought(reply, await trading.buy(buy));
    },
  );
}

/** GET /orders: the account's orders in one game, or the change feed. */
function listOrders(api: ZodApi, { trading, view }: RouteDeps): void {
  api.get(
    '/orders',
    {
      schema: {
        operationId: 'listOrders',
        summary: "The account's orders in one game, newest first, or changed after an instant",
        description:
          'Newest first by default. With updated_after it is the change feed: only orders whose updated_at is strictly later, oldest change first (updated_at, then order_id), so a poller that asks from its greatest updated_at minus a few seconds and dedupes on (order_id, updated_at) sees every state an order passes through between its polls at most once per change. custom_id looks one order up and ignores the other filters.',
        tags: ['trading'],
        querystring: ordersQuerySchema,
        response: {
          200: orderPageSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'unsupported_game'),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const { status, cursor, limit = 50, custom_id, updated_after } = request.query;
      const appId = resolveAppId(request.query.appId, account.appIds);
      if (custom_id !== undefined) {
        const found = await trading.findByCustomId(account.id, custom_id, appId);
        return { data: found ? [view(found)] : [], meta: { next_cursor: null } };
      }
      const keyset = pageKeyset('o', updated_after, cursor);
      const rows = await trading.orders({ accountId: account.id, appId, status, ...keyset, limit });
      return keysetPage('o', keyset, rows, limit, view);
    },
  );
}

/** GET /orders/info: one order by the custom_id it was created with. */
function getOrderByCustomId(api: ZodApi, { trading, view }: RouteDeps): void {
  api.get(
    '/orders/info',
    {
      schema: {
        operationId: 'getOrderByCustomId',
        summary: 'Look an order up by the custom_id it was created with',
        tags: ['trading'],
        querystring: orderInfoQuerySchema,
        response: {
          200: orderSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'unsupported_game', ...ORDER_ERRORS.read),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const appId = resolveAppId(request.query.appId, account.appIds);
      return view(await trading.orderByCustomId(account.id, request.query.custom_id, appId));
    },
  );
}

/** GET /orders/{id}: one order. */
function getOrder(api: ZodApi, { trading, view }: RouteDeps): void {
  api.get(
    '/orders/:id',
    {
      schema: {
        operationId: 'getOrder',
        summary: 'One order, with hold_until, per-item tradable_at and refund',
        tags: ['trading'],
        params: orderParamsSchema,
        querystring: orderLookupQuerySchema,
        response: {
          200: orderSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'unsupported_game', ...ORDER_ERRORS.read),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const appId = resolveAppId(request.query.appId, account.appIds);
      return view(await trading.order(account.id, request.params.id, appId));
    },
  );
}

/** POST /orders/{id}/claim: releases a held order. */
function claimOrder(api: ZodApi, { trading, view }: RouteDeps): void {
  api.post(
    '/orders/:id/claim',
    {
      schema: {
        operationId: 'claimOrder',
        summary:
          'Release a held order shortly after hold_until (a no-op for orders that deliver by themselves)',
        tags: ['trading'],
        params: orderParamsSchema,
        querystring: orderLookupQuerySchema,
        response: {
          200: claimResponseSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'unsupported_game', ...ORDER_ERRORS.claim),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const appId = resolveAppId(request.query.appId, account.appIds);
      return view(await trading.claim(account.id, request.params.id, appId));
    },
  );
}

/** POST /withdrawals: always 501, withdrawals are made on the website. */
function refuseWithdrawals(api: ZodApi): void {
  api.post(
    '/withdrawals',
    {
      schema: {
        summary: 'Withdrawals are handled on the website (always 501)',
        tags: ['account'],
        response: {
          // Documented so that the operation has a success status, as OpenAPI tools expect.
          '2xx': documentedResponse({
            description: 'never sent: withdrawals are made on the website, every call answers 501',
          }),
          ...errorResponses(...AUTH_ERRORS, 'not_implemented'),
        },
      },
    },
    async () => {
      throw refuse('not_implemented', 'withdrawals are made on the website, not through the API');
    },
  );
}

/** What both buy bodies carry. */
type BuyBody = Pick<CreateOrderBody, 'listing_ids' | 'custom_id' | 'max_price_usd' | 'autoclaim'>;

/** How one buy route reads its request. */
interface BuyRoute {
  kind: BuyRequest['kind'];
  appId: number;
  /** Where the items go (null when the buyer has none linked); may refuse, after the key is read. */
  recipient: () => string | null;
  /** The endpoint and the body as sent, minus what does not tell two bodies apart. */
  fingerprint: [endpoint: string, sent: unknown];
}

/** The `BuyRequest` of either buy route. */
function buyRequest(
  account: Account,
  idempotencyHeader: string | undefined,
  body: BuyBody,
  route: BuyRoute,
): BuyRequest {
  const customId = idempotencyKey(idempotencyHeader, body.custom_id);
  return {
    kind: route.kind,
    account,
    appId: route.appId,
    listingIds: body.listing_ids,
    customId,
    fingerprint: fingerprintOf(...route.fingerprint),
    maxPriceCents: body.max_price_usd === undefined ? null : usdToCents(body.max_price_usd),
    autoclaim: body.autoclaim,
    steamId: route.recipient(),
    // Delivery to another trade URL is funded from settled money only.
    settledOnly: route.kind === 'market_buy',
  };
}

/** The one idempotency value of a request: the header or custom_id; both sent must be equal. */
function idempotencyKey(header: string | undefined, customId: string | undefined): string | null {
  if (header !== undefined && customId !== undefined && header !== customId)
    throw refuse('invalid_request', 'the Idempotency-Key header and custom_id differ; send one value');
  return header ?? customId ?? null;
}

/**
 * The request as the order row records it: the endpoint and the body as sent (custom_id left out).
 * A later request with the key replays the order whatever its own fingerprint.
 */
function fingerprintOf(endpoint: string, body: unknown): string {
  return createHash('sha256')
    .update(`${endpoint}\n${JSON.stringify(body)}`)
    .digest('hex');
}

/** 201 with the order's receipt, byte for byte as first answered; a replay says so in a header. */
function sendBought(reply: FastifyReply, bought: Bought) {
  if (bought.replayed) reply.header('idempotent-replay', 'true');
  return reply
    .code(201)
    .type('application/json; charset=utf-8')
    .send(Buffer.from(bought.receipt) as never);
}
