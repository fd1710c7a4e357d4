/**
 * The price history API the collector serves (`/v1/history`): its requests and answers as zod
 * schemas. The collector's routes parse their query with them and build their OpenAPI document
 * from them; the typed client parses every answer with them, so the three cannot disagree.
 */
import { z } from 'zod';
import { APP_IDS } from './common.js';
import { CURRENCIES } from './market.js';

/** Candle widths and their length in seconds. */
export const INTERVAL_SECONDS = {
  '1m': 60,
  '5m': 300,
  '15m': 900,
  '1h': 3600,
  '4h': 14_400,
  '1d': 86_400,
} as const;

/** One of the candle widths. */
export type CandleInterval = keyof typeof INTERVAL_SECONDS;

/** Buckets one candles request may span (past it, a wider interval or a shorter range). */
export const MAX_RANGE_BUCKETS = 20_000;

/**
 * Buckets one answer holds at most; `next_cursor` leads on. 90 days of 1h candles (the longest
 * stats window) are one answer, one read of the warehouse rather than one per page.
 */
export const MAX_PAGE_BUCKETS = 2160;

const appIdSchema = z
  .string()
  .regex(/^\d+$/, 'must be an app id')
  .transform(Number)
  .pipe(z.union([z.literal(APP_IDS.cs2), z.literal(APP_IDS.dota2), z.literal(APP_IDS.rust)]))
  .meta({ description: 'the game: 730 CS2, 570 Dota 2, 252490 Rust' });
const isoUtc = z.iso
  .datetime({ offset: false })
  .meta({ description: 'ISO 8601 UTC, e.g. 2026-11-20T00:00:00Z' });
const usdOrCurrency = z.enum(CURRENCIES).default('USD').meta({ description: 'currency of every amount' });
const money = z.number().nullable().meta({ description: 'an amount with 2 decimals in the asked currency' });

/** Query of `GET /v1/history/candles`. */
export const candlesQuerySchema = z.object({
  appId: appIdSchema.default(APP_IDS.cs2),
  market_hash_name: z.string().min(1).max(256),
  wear: z.string().min(1).max(32).optional().meta({ description: 'left out: any wear of the name' }),
  phase: z.string().min(1).max(32).optional().meta({ description: 'Doppler phase; left out: none' }),
  interval: z.enum(Object.keys(INTERVAL_SECONDS) as [CandleInterval, ...CandleInterval[]]),
  from: isoUtc,
  to: isoUtc,
  currency: usdOrCurrency,
  cursor: z.string().max(64).optional().meta({ description: 'next_cursor of the previous page' }),
});

/** The span a candle rests on where collection was down. */
const gapSchema = z.object({ from: isoUtc, to: isoUtc.nullable() }).meta({
  description: 'the union of the spans of collection down overlapping the bucket (to null: still down)',
});

/** One bucket `[t, t + interval)`. */
export const candleSchema = z.object({
  t: isoUtc,
  open: money,
  high: money,
  low: money,
  close: money,
  listed_open: z.number().int().nullable(),
  listed_close: z.number().int().nullable(),
  listed_max: z.number().int().nullable(),
  appeared: z.number().int(),
  left: z.number().int(),
  service_min_ask: money,
  first_observed_at: isoUtc.nullable(),
  last_observed_at: isoUtc.nullable(),
  observations: z.number().int(),
  rate: z.number().nullable().meta({ description: 'units of the currency per 1 USD used for the bucket' }),
  complete: z.boolean(),
  gap: gapSchema.nullable(),
});

/** Answer of `GET /v1/history/candles`. */
export const candlesAnswerSchema = z.object({
  app_id: z.number().int(),
  market_hash_name: z.string(),
  wear: z.string().nullable(),
  phase: z.string().nullable(),
  interval: z.string(),
  currency: z.string(),
  candles: z.array(candleSchema),
  next_cursor: z.string().nullable(),
});

/** Query of `GET /v1/history/items`. */
export const itemsQuerySchema = z.object({
  appId: appIdSchema.default(APP_IDS.cs2),
  q: z.string().min(1).max(100).optional().meta({ description: 'part of the name, any case' }),
  cursor: z.string().max(512).optional(),
});

/** Answer of `GET /v1/history/items`. */
export const itemsAnswerSchema = z.object({
  items: z.array(
    z.object({
      app_id: z.number().int(),
      market_hash_name: z.string(),
      wear: z.string().nullable(),
      phase: z.string().nullable(),
      first_seen_at: isoUtc,
      last_seen_at: isoUtc,
    }),
  ),
  next_cursor: z.string().nullable(),
});

/** The body of every error. */
export const historyErrorSchema = z.looseObject({ code: z.string(), detail: z.string() });

const windowSchema = z.enum(['24h', '7d', '30d', '90d']).meta({ description: 'the window, ending now' });

/** Query of `GET /v1/history/stats`. */
export const statsQuerySchema = z.object({
  appId: appIdSchema.default(APP_IDS.cs2),
  market_hash_name: z.string().min(1).max(256),
  wear: z.string().min(1).max(32).optional(),
  phase: z.string().min(1).max(32).optional(),
  window: windowSchema,
  currency: usdOrCurrency,
});

/** Answer of `GET /v1/history/stats`. */
export const statsAnswerSchema = z.object({
  app_id: z.number().int(),
  market_hash_name: z.string(),
  wear: z.string().nullable(),
  phase: z.string().nullable(),
  window: z.string(),
  from: isoUtc,
  to: isoUtc,
  currency: z.string(),
  rate: z.number().nullable(),
  observations: z.number().int(),
  min: money,
  max: money,
  median: money,
  mean: money,
  change: money,
  change_pct: z.number().nullable(),
  volatility: z.number().nullable().meta({ description: 'sample deviation of hourly log returns' }),
  appeared_per_day: z.number(),
  left_per_day: z.number(),
  median_lifetime_seconds: z.number().nullable(),
  float_quartiles: z.array(z.number()).nullable(),
  collected: z
    .number()
    .meta({ description: 'share of the window collected: after the first landing, outside every gap' }),
});

/** Query of `GET /v1/history/movers`. */
export const moversQuerySchema = z.object({
  appId: appIdSchema.default(APP_IDS.cs2),
  window: windowSchema,
  by: z.enum(['change', 'liquidity']).default('change'),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be an integer 1-100')
    .transform(Number)
    .pipe(z.number().int().min(1).max(100))
    .default(20),
});

/** Answer of `GET /v1/history/movers`. */
export const moversAnswerSchema = z.object({
  app_id: z.number().int(),
  window: z.string(),
  by: z.string(),
  movers: z.array(
    z.object({
      market_hash_name: z.string(),
      wear: z.string().nullable(),
      phase: z.string().nullable(),
      first_usd: z.number().nullable(),
      last_usd: z.number().nullable(),
      change_pct: z.number().nullable(),
      listings_moved: z.number().int(),
    }),
  ),
});

/** A candle of `GET /v1/history/candles`. */
export type Candle = z.infer<typeof candleSchema>;
/** A page of `GET /v1/history/candles`. */
export type CandlesAnswer = z.infer<typeof candlesAnswerSchema>;
/** A page of `GET /v1/history/items`. */
export type HistoryItemsAnswer = z.infer<typeof itemsAnswerSchema>;
/** An item group of `GET /v1/history/items`. */
export type HistoryItem = HistoryItemsAnswer['items'][number];
/** The answer of `GET /v1/history/stats`. */
export type HistoryStats = z.infer<typeof statsAnswerSchema>;
/** The answer of `GET /v1/history/movers`. */
export type HistoryMovers = z.infer<typeof moversAnswerSchema>;
