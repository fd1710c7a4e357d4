/** Market data beside listings: health, games, the minAsk price list, its snapshot, public prices, FX. */
import { z } from 'zod';
import { appIdParam, cursorSchema, queryInteger, queryText, timestampSchema, usdSchema } from './common.js';
import { CS2_ONLY, wearSchema } from './listing.js';

export const healthSchema = z
  .object({
    status: z.string().meta({ example: 'ok' }),
    groups: z.number().int().meta({ description: 'number of price groups' }),
    price_list_age_seconds: z.number().int(),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof healthSchema>;

export const gameSchema = z
  .object({
    appId: z.number().int(),
    name: z.string(),
    tradable: z.boolean().meta({ description: 'false means readable but not yet buyable' }),
  })
  .meta({ id: 'Game' });
export type Game = z.infer<typeof gameSchema>;

export const gamesResponseSchema = z.object({ games: z.array(gameSchema) }).meta({ id: 'Games' });

/**
 * One minAsk row: per market hash name + wear + Doppler phase, the cheapest current ask and how
 * many are listed. Field names designed here (the specification leaves them out): `min_ask_usd`
 * and `listed_count`.
 */
export const priceRowSchema = z
  .object({
    market_hash_name: z.string(),
    wear: wearSchema.nullable(),
    doppler_phase: z.string().nullable(),
    min_ask_usd: usdSchema.meta({ description: 'cheapest current ask of the group' }),
    listed_count: z.number().int().meta({ description: 'how many listings the group has' }),
  })
  .meta({ id: 'PriceRow' });
export type PriceRow = z.infer<typeof priceRowSchema>;

/**
 * The price list: an indicative grouped snapshot, rebuilt on a cadence, that can lag the live
 * listings; `generated_at` says when it was built. Paged by name order (designed here).
 */
export const priceListSchema = z
  .object({
    app_id: z.number().int(),
    generated_at: timestampSchema.meta({ description: 'when this price list was built' }),
    items: z.array(priceRowSchema),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'PriceList' });
export type PriceList = z.infer<typeof priceListSchema>;

/** Query of `GET /prices`: appId, search and name as on listings; wear is CS2-only here. */
export const pricesQuerySchema = z.object({
  appId: appIdParam.optional(),
  search: queryText().optional(),
  name: queryText(300).optional().meta({ description: 'exact, case-insensitive; wins over search' }),
  wear: wearSchema.optional().meta({ description: CS2_ONLY }),
  cursor: cursorSchema.optional(),
  limit: queryInteger(1, 5000).optional().meta({ description: '1-5000, default 1000 (designed here)' }),
});
export type PricesQuery = z.infer<typeof pricesQuerySchema>;

/**
 * Query of `GET /public/prices` (no key; designed here): the same price list as `/prices` for
 * one game, paged; rate-limited per client address like a standard read.
 */
export const publicPricesQuerySchema = pricesQuerySchema.pick({ appId: true, cursor: true, limit: true });

/**
 * One line of `GET /prices/snapshot.ndjson.gz` (designed here): exactly a CS2 price row of
 * `/prices`, so the file and the list agree. The build time is sent in the `X-Generated-At`
 * header rather than in the rows, so the ETag changes only when prices or counts do.
 */
export const snapshotRowSchema = priceRowSchema.meta({ id: 'SnapshotRow' });
export type SnapshotRow = z.infer<typeof snapshotRowSchema>;

/** Currencies `/currency` quotes against USD: those skin traders price in. */
export const CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'CNY',
  'RUB',
  'BRL',
  'PLN',
  'UAH',
  'TRY',
  'KZT',
  'INR',
  'JPY',
  'KRW',
  'CAD',
  'AUD',
  'CHF',
  'SEK',
  'NOK',
  'CZK',
  'VND',
] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Units of each currency per 1 USD, of late-2026 magnitudes (the documented example). */
export const TYPICAL_USD_RATES: Readonly<Record<Currency, number>> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  CNY: 7.18,
  RUB: 92.5,
  BRL: 5.45,
  PLN: 3.98,
  UAH: 41.2,
  TRY: 34.1,
  KZT: 487,
  INR: 84.1,
  JPY: 151.3,
  KRW: 1372,
  CAD: 1.37,
  AUD: 1.52,
  CHF: 0.88,
  SEK: 10.6,
  NOK: 10.9,
  CZK: 23.3,
  VND: 25_300,
};

/**
 * FX rates (designed here): units of each currency per 1 USD, and when they were last updated.
 * Rates drift slowly; convert with the rate in force at the time of a price, not today's.
 */
export const currencyResponseSchema = z
  .object({
    base: z.literal('USD'),
    rates: z
      .object(
        Object.fromEntries(CURRENCIES.map((c) => [c, z.number().positive()])) as Record<
          Currency,
          z.ZodNumber
        >,
      )
      .meta({ description: 'units of the currency per 1 USD', example: TYPICAL_USD_RATES }),
    updated_at: timestampSchema,
  })
  .meta({ id: 'Currency' });
export type CurrencyResponse = z.infer<typeof currencyResponseSchema>;
