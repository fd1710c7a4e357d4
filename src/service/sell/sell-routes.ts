/** The Instant Sell routes: GET /sell/status, POST /sell/quotes, POST and GET /sell/orders, GET /sell/orders/{id}. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createSellOrderBodySchema,
  sellOrderPageSchema,
  sellOrderParamsSchema,
  sellOrderSchema,
  sellOrdersQuerySchema,
  sellQuoteBodySchema,
  sellQuoteSchema,
  sellStatusSchema,
} from '../../contract/sell.js';
import { authOf } from '../http/authenticate.js';
import type { Capability } from '../http/capabilities.js';
import { keysetPage, pageKeyset } from '../http/change-feed.js';
import type { ZodApi } from '../http/feature.js';
import { documentedResponse, errorResponses } from '../http/openapi.js';
import type { InstantSell } from './instant-sell.js';
import { SELL_ORDER_ERRORS } from './placement.js';
import { QUOTE_ERRORS } from './quotes.js';
import { sellOrderJson } from './sell-order-record.js';

/** Every /sell endpoint but the status needs access; selling also needs an unrestricted account. */
const READ_ACCESS: Capability[] = ['instant_sell'];
const WRITE_ACCESS: Capability[] = ['instant_sell', 'active_account'];

/** Sent on the replay of an order by its external_id. */
const REPLAY_HEADERS = {
  'Idempotent-Replay': z
    .literal('true')
    .meta({ description: 'the order made earlier with this external_id' }),
};

/** Registers the Instant Sell routes. */
export function registerSellRoutes(app: FastifyInstance, sell: InstantSell): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  getSellStatus(api, sell);
  createSellQuote(api, sell);
  createSellOrder(api, sell);
  listSellOrders(api, sell);
  getSellOrder(api, sell);
}

/** GET /sell/status: whether Instant Sell is open to the account. */
function getSellStatus(api: ZodApi, sell: InstantSell): void {
  api.get(
    '/sell/status',
    {
      schema: {
        operationId: 'getSellStatus',
        summary: 'Whether this account has Instant Sell (invite-only), with its terms',
        response: { 200: sellStatusSchema },
      },
    },
    async (request) => sell.status(authOf(request).account),
  );
}

/** POST /sell/quotes: quotes the inventory behind a trade URL. */
function createSellQuote(api: ZodApi, sell: InstantSell): void {
  api.post(
    '/sell/quotes',
    {
      config: { rate: 'sell_write', requires: WRITE_ACCESS },
      schema: {
        operationId: 'createSellQuote',
        summary: 'Quote the inventory behind a trade URL: the exact credit per eligible copy',
        description:
          'Reads the platform inventory the trade URL names (the whole inventory of the game, its first 200 copies oldest first, or the asset_ids asked for, each of which must be at home, else 404 not_found; a fresh inventory answers 409 inventory_pending for a few seconds, a private or trade-banned one 409 inventory_blocked). Each eligible copy is credited its market price (the cheapest live listing of the item) less spread_percent of GET /sell/status, rounded down to the cent; the others say why not. The quote binds its amounts until expires_at (quote_ttl_seconds).',
        body: sellQuoteBodySchema,
        response: {
          201: sellQuoteSchema,
          ...errorResponses(...QUOTE_ERRORS),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await sell.quote(authOf(request).account, request.body)),
  );
}

/** POST /sell/orders: sells a quote's eligible items to the bots. */
function createSellOrder(api: ZodApi, sell: InstantSell): void {
  api.post(
    '/sell/orders',
    {
      config: { rate: 'sell_write', requires: WRITE_ACCESS },
      schema: {
        operationId: 'createSellOrder',
        summary: "Sell a quote's eligible items to the bots",
        description:
          'Sells the eligible copies of the quote still in the inventory at their quoted amounts. external_id makes the call idempotent: the same external_id answers the same order (200, Idempotent-Replay: true); with another quote_id or min_total_usd it is 409 idempotency_key_mismatch. A total below min_total_usd is 409 sell_total_below_minimum and nothing is sent. The order starts pending; a few seconds later the bots send their offers: one bot per started items_per_bot items, at most 3, the items in quote order cut into consecutive parts as even as possible, taken by the bots with the fewest open offers.',
        body: createSellOrderBodySchema,
        response: {
          200: documentedResponse({
            description: 'the order made earlier with this external_id, as it is now',
            body: sellOrderSchema,
            headers: REPLAY_HEADERS,
          }),
          201: sellOrderSchema,
          ...errorResponses(...SELL_ORDER_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const placed = await sell.place(authOf(request).account, request.body);
      if (placed.replay) reply.header('idempotent-replay', 'true');
      return reply.code(placed.replay ? 200 : 201).send(sellOrderJson(placed.order));
    },
  );
}

/** GET /sell/orders: the account's sell orders. */
function listSellOrders(api: ZodApi, sell: InstantSell): void {
  api.get(
    '/sell/orders',
    {
      config: { requires: READ_ACCESS },
      schema: {
        operationId: 'listSellOrders',
        summary: "The account's sell orders, newest first, or changed after an instant",
        description:
          'Newest first by default. With updated_after it is the change feed: only sell orders whose updated_at is strictly later, oldest change first (updated_at, then id); poll from the greatest updated_at seen minus a few seconds and dedupe on (id, updated_at).',
        querystring: sellOrdersQuerySchema,
        response: { 200: sellOrderPageSchema },
      },
    },
    async (request) => {
      const { status, cursor, limit = 50, updated_after } = request.query;
      const keyset = pageKeyset('s', updated_after, cursor);
      const rows = await sell.page(authOf(request).account, {
        status,
        beforeSeq: undefined,
        ...keyset,
        limit,
      });
      return keysetPage('s', keyset, rows, limit, sellOrderJson);
    },
  );
}

/** GET /sell/orders/{id}: one sell order. */
function getSellOrder(api: ZodApi, sell: InstantSell): void {
  api.get(
    '/sell/orders/:id',
    {
      config: { requires: READ_ACCESS },
      schema: {
        operationId: 'getSellOrder',
        summary: 'One sell order: its lifecycle, bot offers, and credited and settled amounts',
        params: sellOrderParamsSchema,
        response: {
          200: sellOrderSchema,
          ...errorResponses('invalid_request', 'not_found'),
        },
      },
    },
    async (request) => sellOrderJson(await sell.order(authOf(request).account, request.params.id)),
  );
}
