/**
 * Instant Sell (invite-only): access status, quotes and sell orders. The specification shows none
 * of these bodies; every field here is designed, around what it names: a quote gives the exact USD
 * credited per eligible item, an order is split across at most 3 bots, funds settle after about 8 days.
 */
import { z } from 'zod';
import { timestampSchema, usdSchema } from './common.js';

/** Limits of Instant Sell, as the specification states them. */
export const SELL_LIMITS = {
  /** Bots one sell order may be split across. */
  maxBotsPerOrder: 3,
  /** Days until funds settle: the platform's trade-protection hold. */
  settlementDays: 8,
} as const;

/** Response of GET /sell/status (designed): whether this account has Instant Sell and its terms. */
export const sellStatusSchema = z
  .object({
    enabled: z.boolean().meta({ description: 'whether this account has access (invite-only)' }),
    max_bots_per_order: z.number().int().meta({ description: 'a large basket is split across up to 3 bots' }),
    settlement_days: z.number().int().meta({ description: "about 8: the platform's trade-protection hold" }),
    quote_ttl_seconds: z.number().int().meta({ description: 'how long a quote can be turned into an order' }),
  })
  .meta({ id: 'SellStatus' });

/** Response of GET /sell/status. */
export type SellStatus = z.infer<typeof sellStatusSchema>;

/** Most items one quote may name (designed). */
export const MAX_SELL_QUOTE_ITEMS = 200;

/**
 * Body of POST /sell/quotes (designed): the seller's trade URL names the inventory to read and is
 * where the bots send their offers; `asset_ids` narrows the quote to some copies.
 */
export const sellQuoteBodySchema = z
  .object({
    trade_url: z.string().min(1).max(2048).meta({
      description: "the seller's trade URL; the service checks it and answers 400 invalid_trade_url",
    }),
    asset_ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(MAX_SELL_QUOTE_ITEMS)
      .refine((ids) => new Set(ids).size === ids.length, { message: 'asset_ids must not repeat' })
      .optional()
      .meta({
        description: `copies to quote, 1-${MAX_SELL_QUOTE_ITEMS}; left out, the whole inventory is quoted`,
      }),
    appId: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: 'game of the inventory: 730 CS2 (default), 570 Dota 2, 252490 Rust' }),
  })
  .meta({ id: 'SellQuoteBody' });

/** Body of POST /sell/quotes. */
export type SellQuoteBody = z.infer<typeof sellQuoteBodySchema>;

/** Why a copy cannot be sold (values designed here); responses carry plain strings. */
export const SELL_INELIGIBLE_REASONS = [
  'not_tradable',
  'trade_locked',
  'unsupported_item',
  'no_price',
] as const;

/** One copy of a quote: the exact USD credited if eligible. */
export const sellQuoteItemSchema = z
  .object({
    asset_id: z.string(),
    market_hash_name: z.string(),
    eligible: z.boolean(),
    amount_usd: usdSchema
      .nullable()
      .meta({ description: 'exact USD credited for this copy; null when not eligible' }),
    reason: z
      .string()
      .nullable()
      .meta({
        description: `why the copy is not eligible; null when eligible. Values: ${SELL_INELIGIBLE_REASONS.join(', ')}`,
      }),
  })
  .meta({ id: 'SellQuoteItem' });

/** One copy of a quote. */
export type SellQuoteItem = z.infer<typeof sellQuoteItemSchema>;

/** A sell quote (designed): binding amounts until expires_at. */
export const sellQuoteSchema = z
  .object({
    quote_id: z.string(),
    app_id: z.number().int(),
    steam_id: z.string().meta({ description: 'owner of the quoted inventory' }),
    currency: z.literal('USD'),
    items: z.array(sellQuoteItemSchema),
    total_usd: usdSchema.meta({ description: 'sum of amount_usd over the eligible items' }),
    created_at: timestampSchema,
    expires_at: timestampSchema.meta({ description: 'after it, POST /sell/orders refuses the quote' }),
  })
  .meta({ id: 'SellQuote' });

/** A sell quote. */
export type SellQuote = z.infer<typeof sellQuoteSchema>;

/** Body of POST /sell/orders (designed beyond min_total_usd and external_id): sells the eligible items of a quote. */
export const createSellOrderBodySchema = z
  .object({
    quote_id: z.string().min(1).max(128),
    min_total_usd: z.number().min(0).max(1e9).optional().meta({
      description: 'price-drift protection: refuse the order when the total to credit would be lower',
    }),
    external_id: z.string().min(1).max(128).optional().meta({
      description: 'idempotency: repeating it replays the original sell order',
    }),
  })
  .meta({ id: 'CreateSellOrderBody' });

/** Body of POST /sell/orders. */
export type CreateSellOrderBody = z.infer<typeof createSellOrderBodySchema>;

/** The states of a sell order: the specification's chain plus designed terminal states. */
export const SELL_ORDER_STATUSES = [
  'pending',
  'offer_sent',
  'received',
  'completed',
  'cancelled',
  'failed',
] as const;

/** A sell order's status. */
export const sellOrderStatusSchema = z.enum(SELL_ORDER_STATUSES).meta({
  description:
    'pending → offer_sent → received → completed (funds settled). Designed: cancelled when no offer was accepted (declined or expired; nothing credited), failed when the received items were reversed during trade protection or delivery could not start',
});

/** A sell order's status. */
export type SellOrderStatus = z.infer<typeof sellOrderStatusSchema>;

/** The states of one bot's trade offer (designed). */
export const SELL_OFFER_STATUSES = [
  'sent',
  'accepted',
  'declined',
  'expired',
  'cancelled',
  'rolled_back',
] as const;

/** A bot of the service's network, as the seller sees it on the platform. */
export const sellBotSchema = z
  .object({
    steam_id: z.string(),
    profile_url: z.url(),
    name: z.string(),
  })
  .meta({ id: 'SellBot' });

/** A bot of the service's network. */
export type SellBot = z.infer<typeof sellBotSchema>;

/** One bot's trade offer of a sell order: check bot and trade_offer_id before accepting. */
export const sellOfferSchema = z
  .object({
    bot: sellBotSchema,
    trade_offer_id: z.string(),
    items: z.array(z.string()).meta({ description: 'asset ids the offer asks for' }),
    status: z.enum(SELL_OFFER_STATUSES),
  })
  .meta({ id: 'SellOffer' });

/** One bot's trade offer of a sell order. */
export type SellOffer = z.infer<typeof sellOfferSchema>;

/** One item of a sell order, at its quoted amount. */
export const sellOrderItemSchema = z
  .object({
    asset_id: z.string(),
    market_hash_name: z.string(),
    amount_usd: usdSchema.meta({ description: 'exact USD credited, from the quote' }),
  })
  .meta({ id: 'SellOrderItem' });

/** One item of a sell order. */
export type SellOrderItem = z.infer<typeof sellOrderItemSchema>;

/** A sell order (designed): its lifecycle, its bot offers and what has settled to the balance. */
export const sellOrderSchema = z
  .object({
    id: z.string(),
    external_id: z.string().nullable(),
    quote_id: z.string(),
    app_id: z.number().int(),
    steam_id: z.string().meta({ description: 'the seller platform account' }),
    status: sellOrderStatusSchema,
    currency: z.literal('USD'),
    total_usd: usdSchema.meta({ description: 'sum of the items of accepted or still open offers' }),
    settled_usd: usdSchema.meta({
      description: 'credited to the balance so far; equals total_usd once completed',
    }),
    settles_at: timestampSchema.nullable().meta({
      description:
        'when the trade-protection hold clears and funds settle (about 8 days after receipt); null before',
    }),
    failure_reason: z.string().nullable().meta({ description: 'why the order ended cancelled or failed' }),
    items: z.array(sellOrderItemSchema),
    offers: z
      .array(sellOfferSchema)
      .max(SELL_LIMITS.maxBotsPerOrder)
      .meta({ description: 'one per bot, at most 3; empty while pending' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'SellOrder' });

/** A sell order. */
export type SellOrder = z.infer<typeof sellOrderSchema>;

/** Path parameters of /sell/orders/{id}. */
export const sellOrderParamsSchema = z.object({ id: z.string().min(1).max(128) });
