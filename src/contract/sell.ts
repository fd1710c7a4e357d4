/**
 * Instant Sell (invite-only): access status, quotes and sell orders. The specification shows none
 * of these bodies; every field here is designed, around what it names: a quote gives the exact USD
 * credited per eligible item, an order is split across at most 3 bots, funds settle after about 8 days.
 */
import { z } from 'zod';
import { changeFeedQuery, TRADABLE_APP_IDS, timestampSchema, usdSchema } from './common.js';

/** Limits and terms of Instant Sell: the specification's (bots, settlement) and the designed ones. */
export const SELL_LIMITS = {
  /** Bots one sell order may be split across. */
  maxBotsPerOrder: 3,
  /** Days until funds settle: the platform's trade-protection hold. */
  settlementDays: 8,
  /** Items one bot's offer carries before the basket takes another bot (designed). */
  itemsPerBot: 10,
  /** How long a quote can be turned into an order, in seconds (designed). */
  quoteTtlSeconds: 300,
  /** Below the market price by this much: the credit is the market price times (100 - spread) / 100, rounded down to the cent (designed). */
  spreadPercent: 12,
  /** Seconds of service clock the bots take to prepare their offers after an order is placed (designed). */
  offerDelaySeconds: 5,
} as const;

/** Response of GET /sell/status (designed): whether this account has Instant Sell and its terms. */
export const sellStatusSchema = z
  .object({
    enabled: z.boolean().meta({ description: 'whether this account has access (invite-only)' }),
    max_bots_per_order: z.number().int().meta({ description: 'a large basket is split across up to 3 bots' }),
    settlement_days: z.number().int().meta({ description: "about 8: the platform's trade-protection hold" }),
    quote_ttl_seconds: z.number().int().meta({ description: 'how long a quote can be turned into an order' }),
    spread_percent: z.number().meta({
      description:
        'the credit of an item is its market price times (100 - spread_percent) / 100, rounded down to the cent',
    }),
    items_per_bot: z.number().int().meta({
      description: 'a basket takes one bot per started items_per_bot items, at most max_bots_per_order',
    }),
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
  .strictObject({
    trade_url: z.string().min(1).max(2048).meta({
      description: "the seller's trade URL; the service checks it and answers 400 invalid_trade_url",
    }),
    asset_ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(MAX_SELL_QUOTE_ITEMS)
      .refine((ids) => new Set(ids).size === ids.length, { message: 'asset_ids must not repeat' })
      .meta({ uniqueItems: true })
      .optional()
      .meta({
        description: `copies to quote, 1-${MAX_SELL_QUOTE_ITEMS}; left out, the whole inventory is quoted`,
      }),
    appId: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({
        description: 'game of the inventory: 730 CS2 (default) or 570 Dota 2; the bots buy no Rust items',
        enum: [...TRADABLE_APP_IDS],
      }),
  })
  .meta({ id: 'SellQuoteBody' });

/** Body of POST /sell/quotes. */
export type SellQuoteBody = z.infer<typeof sellQuoteBodySchema>;

/**
 * Why a copy cannot be sold (values designed here); responses carry plain strings. not_tradable:
 * the item can never be traded; trade_locked: inside a platform trade lock (until its tradable_at);
 * unsupported_item: the bots do not buy it (stickers, or a credit under one cent); no_price: no live
 * listing of the item gives it a market price.
 */
export const SELL_INELIGIBLE_REASONS = [
  'not_tradable',
  'trade_locked',
  'unsupported_item',
  'no_price',
] as const;

/** Why a copy cannot be sold. */
export type SellIneligibleReason = (typeof SELL_INELIGIBLE_REASONS)[number];

/** One copy of a quote: the exact USD credited if eligible. */
export const sellQuoteItemSchema = z
  .object({
    asset_id: z.string(),
    market_hash_name: z.string(),
    eligible: z.boolean(),
    market_usd: usdSchema.nullable().meta({
      description:
        'the market price the credit derives from (the cheapest live listing of the item); null when none',
    }),
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
  .strictObject({
    quote_id: z.string().min(1).max(128),
    min_total_usd: z.number().min(0).max(1e9).multipleOf(0.01).optional().meta({
      description:
        'price-drift protection in whole cents (12.34; 12.345 is refused with 400): refuse the order (409 sell_total_below_minimum, nothing sent) when the total to credit would be lower',
    }),
    external_id: z.string().min(1).max(128).optional().meta({
      description: 'idempotency: repeating it replays the original sell order',
    }),
  })
  .meta({ id: 'CreateSellOrderBody' });

/** Body of POST /sell/orders. */
export type CreateSellOrderBody = z.infer<typeof createSellOrderBodySchema>;

/** The states of a sell order: the specification's chain plus a designed terminal state. */
export const SELL_ORDER_STATUSES = ['pending', 'offer_sent', 'received', 'completed', 'failed'] as const;

/** Why a sell order failed (values designed here). */
export const SELL_FAILURE_REASONS = [
  'declined',
  'expired',
  'items_unavailable',
  'below_minimum',
  'cannot_trade',
  'rolled_back',
] as const;

/** A sell order's status. */
export const sellOrderStatusSchema = z.enum(SELL_ORDER_STATUSES).meta({
  description: `pending (the bots prepare their offers) → offer_sent → received (the bots hold the items; the credit is pending) → completed (the trade protection is over and the credit has settled). Designed: failed, with failure_reason one of ${SELL_FAILURE_REASONS.join(', ')}: no offer was accepted (declined, expired), nothing could be sent (items_unavailable: the copies left the inventory; below_minimum: what is left is worth less than min_total_usd; cannot_trade: the seller is trade banned), or every received item was reversed during the trade protection (rolled_back)`,
});

/** A sell order's status. */
export type SellOrderStatus = z.infer<typeof sellOrderStatusSchema>;

/** The states of one bot's trade offer (designed). */
export const SELL_OFFER_STATUSES = ['sent', 'accepted', 'declined', 'expired', 'rolled_back'] as const;

/** A bot offer's status. */
export type SellOfferStatus = (typeof SELL_OFFER_STATUSES)[number];

/** Where one item of a sell order stands (designed). */
export const SELL_ITEM_STATUSES = [
  'pending',
  'offered',
  'received',
  'returned',
  'unavailable',
  'not_sent',
  'reversed',
] as const;

/** Where one item of a sell order stands. */
export type SellItemStatus = (typeof SELL_ITEM_STATUSES)[number];

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
    status: z.enum(SELL_ITEM_STATUSES).meta({
      description:
        'pending (not sent yet), offered (in an open bot offer), received (the bot holds it), returned (its offer was declined or expired), unavailable (gone from the inventory before the offers went out), not_sent (the order failed before its offers went out), reversed (the trade was rolled back)',
    }),
  })
  .meta({ id: 'SellOrderItem' });

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
    total_usd: usdSchema.meta({
      description: 'sum of the items pending, offered or received: what is or will be credited',
    }),
    credited_usd: usdSchema.meta({
      description:
        'what the order pays for the copies the bots received: shown as pending_sale_usd on the balance, not spendable, until settles_at, then paid to the balance settled (one ledger sale row)',
    }),
    settled_usd: usdSchema.meta({
      description:
        'part of the credit that has settled (0 until the trade protection is over); equals total_usd once completed',
    }),
    settles_at: timestampSchema.nullable().meta({
      description:
        'when the trade-protection hold clears and the credit settles (8 days after the last accepted offer); null before received',
    }),
    failure_reason: z
      .string()
      .nullable()
      .meta({ description: `why the order failed: ${SELL_FAILURE_REASONS.join(', ')}; null otherwise` }),
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

/** Query of GET /sell/orders (designed: the shape of GET /orders). */
export const sellOrdersQuerySchema = z.object({
  status: sellOrderStatusSchema.optional(),
  ...changeFeedQuery,
});

/** One page of GET /sell/orders, newest first (designed: the shape of GET /orders). */
export const sellOrderPageSchema = z
  .object({
    data: z.array(sellOrderSchema),
    meta: z.object({ next_cursor: z.string().nullable().meta({ description: 'null on the last page' }) }),
  })
  .meta({ id: 'SellOrderPage' });
/** One page of GET /sell/orders. */
export type SellOrderPage = z.infer<typeof sellOrderPageSchema>;
