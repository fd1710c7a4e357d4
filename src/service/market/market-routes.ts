/** Market-data reads: games, listings, the minAsk price list (keyed and public) and FX rates. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError } from '../../contract/api-error.js';
import { APP_IDS } from '../../contract/common.js';
import { listingPageSchema, listingsQuerySchema } from '../../contract/listing.js';
import {
  currencyResponseSchema,
  gamesResponseSchema,
  priceListSchema,
  pricesQuerySchema,
  publicPricesQuerySchema,
} from '../../contract/market.js';
import { resolveAppId } from '../http/app-id.js';
import { authOf } from '../http/authenticate.js';
import { withFastPath } from '../http/fast-validation.js';
import type { ZodApi } from '../http/feature.js';
import { AUTH_ERRORS, errorResponses } from '../http/openapi.js';
import type { Catalogue } from './catalogue.js';
import { ALL_APP_IDS, gamesReadableBy } from './games.js';
import { parseListingsQuery } from './listing-index/fast-listings-query.js';
import { ListingPageCache } from './listing-index/listing-page-cache.js';
import { listingSearchOf } from './listing-search.js';
import type { FxRates } from './prices/fx-rates.js';
import type { PriceList, PriceQuery } from './prices/price-list.js';

/** What the market-data routes read. */
export interface MarketRouteDeps {
  catalogue: Catalogue;
  prices: PriceList;
  fx: FxRates;
}

/** Registers the market-data routes. */
export function registerMarketRoutes(app: FastifyInstance, deps: MarketRouteDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listGames(api);
  listListings(api, deps);
  getPrices(api, deps);
  getPublicPrices(api, deps);
  getCurrency(api, deps);
}

/** GET /games: the games this key may read. */
function listGames(api: ZodApi): void {
  api.get(
    '/games',
    {
      schema: {
        summary: 'Games this key may read, CS2 first',
        tags: ['market'],
        response: { 200: gamesResponseSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ games: gamesReadableBy(authOf(request).account.appIds) }),
  );
}

/** GET /listings: live buyable listings, keyset-paged, answered from prepared pages. */
function listListings(api: ZodApi, deps: MarketRouteDeps): void {
  const pages = new ListingPageCache(deps.catalogue.index);
  api.get(
    '/listings',
    {
      // The page itself is cheap to answer; zod's parse of the query would cost more than it.
      validatorCompiler: withFastPath(parseListingsQuery),
      schema: {
        summary: 'Live buyable listings, keyset-paged',
        tags: ['market'],
        querystring: listingsQuerySchema,
        response: {
          200: listingPageSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'unsupported_game'),
        },
      },
    },
    async (request, reply) => {
      const search = listingSearchOf(request.query, authOf(request).account.appIds);
      const { body, pooled } = pages.page(search);
      // Once handed to the socket, a pooled buffer is free for the next page.
      if (pooled) reply.raw.once('finish', () => pages.sent(body));
      // The page is sent as prepared bytes; the schema documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
}

/** GET /prices: the minAsk price list. */
function getPrices(api: ZodApi, deps: MarketRouteDeps): void {
  api.get(
    '/prices',
    {
      config: { requires: ['funded'] },
      schema: {
        summary: 'The minAsk price list: cheapest ask and count per name, wear and Doppler phase',
        tags: ['market'],
        querystring: pricesQuerySchema,
        response: {
          200: priceListSchema,
          ...errorResponses(
            ...AUTH_ERRORS,
            'invalid_param',
            'unsupported_game',
            'insufficient_settled_balance',
          ),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      const appId = resolveAppId(request.query.appId, account.appIds);
      if (request.query.wear !== undefined && appId !== APP_IDS.cs2) {
        throw new ApiError('invalid_param', `wear is CS2-only; it cannot be used with appId ${appId}`);
      }
      return priceListOf(deps.prices, { ...request.query, appId });
    },
  );
}

/** GET /public/prices: the minAsk price list without a key. */
function getPublicPrices(api: ZodApi, deps: MarketRouteDeps): void {
  api.get(
    '/public/prices',
    {
      config: { access: 'public', rate: 'read' },
      schema: {
        summary: 'The minAsk price list without a key (rate-limited per client address)',
        tags: ['market'],
        querystring: publicPricesQuerySchema,
        response: {
          200: priceListSchema,
          ...errorResponses('invalid_param', 'unsupported_game', 'rate_limit_exceeded'),
        },
      },
    },
    async (request) =>
      priceListOf(deps.prices, { ...request.query, appId: resolveAppId(request.query.appId, ALL_APP_IDS) }),
  );
}

/** GET /currency: FX rates per 1 USD. */
function getCurrency(api: ZodApi, deps: MarketRouteDeps): void {
  api.get(
    '/currency',
    {
      schema: {
        summary: 'FX rates: units of each currency per 1 USD',
        tags: ['market'],
        response: { 200: currencyResponseSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async () => deps.fx.current(),
  );
}

function priceListOf(prices: PriceList, query: Omit<PriceQuery, 'limit'> & { limit?: number | undefined }) {
  const { items, nextCursor } = prices.query({ ...query, limit: query.limit ?? 1000 });
  return {
    app_id: query.appId,
    generated_at: new Date(prices.generatedAt()).toISOString(),
    items,
    next_cursor: nextCursor,
  };
}
