/** Market-data reads: games, listings, the minAsk price list (keyed and public) and FX rates. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ApiError } from '../../../contract/api-error.js';
import { APP_IDS, centsToUsd } from '../../../contract/common.js';
import {
  type ListingsQuery,
  listingPageSchema,
  listingsQuerySchema,
  type StreamQuery,
} from '../../../contract/listing.js';
import {
  currencyResponseSchema,
  gamesResponseSchema,
  priceListSchema,
  pricesQuerySchema,
  publicPricesQuerySchema,
} from '../../../contract/market.js';
import type { ServiceContext } from '../../context.js';
import { ALL_APP_IDS, gamesReadableBy, resolveAppId } from '../../market/games.js';
import { type ListingFilter, type ListingSearch, renderListingPage } from '../../market/listing-index.js';
import type { PriceQuery } from '../../market/price-list.js';
import type { Account } from '../../store/accounts.js';
import { authOf } from '../authenticate.js';
import { AUTH_ERRORS, errorResponses } from '../openapi.js';

const CS2_ONLY_LISTING_PARAMS = [
  'wear',
  'min_float',
  'max_float',
  'stat_trak',
  'souvenir',
  'available_after',
] as const;

/** Registers the market-data routes. */
export function registerMarketRoutes(app: FastifyInstance, context: ServiceContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

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

  api.get(
    '/listings',
    {
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
      const body = renderListingPage(context.catalogue.index.query(search));
      // The page is sent as the prepared bytes of its listings; the schema documents its shape.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  api.get(
    '/prices',
    {
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
      requireSettledFunds(account);
      if (request.query.wear !== undefined && appId !== APP_IDS.cs2) {
        throw new ApiError('invalid_param', `wear is CS2-only; it cannot be used with appId ${appId}`);
      }
      return priceListOf(context, { ...request.query, appId });
    },
  );

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
      priceListOf(context, { ...request.query, appId: resolveAppId(request.query.appId, ALL_APP_IDS) }),
  );

  api.get(
    '/currency',
    {
      schema: {
        summary: 'FX rates: units of each currency per 1 USD',
        tags: ['market'],
        response: { 200: currencyResponseSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async () => context.fx.current(),
  );
}

/** Turns a validated `/listings` query into an index search, enforcing the CS2-only rules. */
export function listingSearchOf(query: ListingsQuery, readable: readonly number[]): ListingSearch {
  const appId = resolveAppId(query.appId, readable);
  if (appId !== APP_IDS.cs2) {
    const cs2Only = CS2_ONLY_LISTING_PARAMS.find((name) => query[name] !== undefined);
    if (cs2Only)
      throw new ApiError('invalid_param', `${cs2Only} is CS2-only; it cannot be used with appId ${appId}`);
    if (query.sort === 'newest')
      throw new ApiError('invalid_param', `sort=newest is CS2-only; use id, price_asc or price_desc`);
  }
  checkRange('min_float', query.min_float, 'max_float', query.max_float);
  const search: ListingSearch = { appId, sort: query.sort ?? 'id', limit: query.limit ?? 50 };
  const optional: Partial<ListingSearch> = {
    ...listingFilterOf(query),
    cursor: query.cursor,
    search: query.search,
    minFloat: query.min_float,
    maxFloat: query.max_float,
    availableAfterMs: query.available_after,
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(search, { [key]: value });
  return search;
}

/** The filters `/listings` and `/listings/stream` share, validated the same way. */
export function listingFilterOf(query: StreamQuery): ListingFilter {
  checkRange('min_price', query.min_price, 'max_price', query.max_price);
  return {
    name: query.name,
    category: query.category,
    rarity: query.rarity,
    wear: query.wear,
    minPriceCents: query.min_price === undefined ? undefined : Math.ceil(query.min_price * 100 - 1e-6),
    maxPriceCents: query.max_price === undefined ? undefined : Math.floor(query.max_price * 100 + 1e-6),
    delivery: query.delivery,
    minRefundPercent: query.min_refund_percent,
    statTrak: query.stat_trak,
    souvenir: query.souvenir,
  };
}

/** The price feed needs a funded account: 402 insufficient_settled_balance without settled funds. */
export function requireSettledFunds(account: Account): void {
  if (account.settledCents > 0) return;
  throw new ApiError(
    'insufficient_settled_balance',
    'the price feed needs a funded account with settled funds',
    {
      balance_usd: centsToUsd(account.balanceCents),
      required_usd: 0.01,
      settled_usd: centsToUsd(account.settledCents),
    },
  );
}

function checkRange(
  minName: string,
  min: number | undefined,
  maxName: string,
  max: number | undefined,
): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw new ApiError('invalid_param', `${minName} (${min}) is greater than ${maxName} (${max})`);
  }
}

function priceListOf(
  context: ServiceContext,
  query: Omit<PriceQuery, 'limit'> & { limit?: number | undefined },
) {
  const { items, nextCursor } = context.prices.query({ ...query, limit: query.limit ?? 1000 });
  return {
    app_id: query.appId,
    generated_at: new Date(context.prices.generatedAt()).toISOString(),
    items,
    next_cursor: nextCursor,
  };
}
