/** Trading: the Order resource, its items and refund, and the bodies and queries of /orders and /market/buy. */
import { z } from 'zod';
import { appIdParam, changeFeedQuery, TRADABLE_APP_IDS, timestampSchema, usdSchema } from './common.js';
import { DELIVERIES } from './listing.js';

/** The states of an order. */
export const ORDER_STATUSES = ['pending', 'delivering', 'hold', 'completed', 'cancelled', 'failed'] as const;

/** An order's status; a claimed held order goes back to `delivering` (designed here). */
export const orderStatusSchema = z.enum(ORDER_STATUSES).meta({
  description:
    'pending, delivering, hold, completed, cancelled, failed; a claimed hold order becomes delivering (designed: the specification does not show it)',
});

/** An order's status. */
export type OrderStatus = z.infer<typeof orderStatusSchema>;

/** The states of one item of an order. */
export const ORDER_ITEM_STATUSES = ['delivering', 'hold', 'delivered', 'returned'] as const;

/** The status of one item of an order. */
export const orderItemStatusSchema = z.enum(ORDER_ITEM_STATUSES);

/** The status of one item of an order. */
export type OrderItemStatus = z.infer<typeof orderItemStatusSchema>;

/** Why an item came back. */
export const RETURN_REASONS = ['trade_timeout', 'declined', 'expired', 'rolled_back', 'unavailable'] as const;

/** Why a returned item came back. */
export const returnReasonSchema = z.enum(RETURN_REASONS);

/** Why a returned item came back. */
export type ReturnReason = z.infer<typeof returnReasonSchema>;

/** How an order reaches the buyer: the listing deliveries, plus `pending` where no estimate exists. */
export const ORDER_DELIVERIES = [...DELIVERIES, 'pending'] as const;

/** How an order reaches the buyer (designed values beyond the listing's three: `pending`). */
export const orderDeliverySchema = z.enum(ORDER_DELIVERIES).meta({
  description:
    'instant, up_to_12h or hold as on the listings (the slowest of the items wins), pending when no estimate exists: always for Dota 2 and Rust orders (value set designed here)',
});

/** How an order reaches the buyer. */
export type OrderDelivery = z.infer<typeof orderDeliverySchema>;

/** One item of an order. */
export const orderItemSchema = z
  .object({
    listing_id: z
      .string()
      .meta({ description: 'the bought listing (designed: not in the specification table)' }),
    market_hash_name: z.string().nullable(),
    price_usd: usdSchema.nullable().meta({ description: 'per-item charge' }),
    status: orderItemStatusSchema,
    tradable_at: timestampSchema
      .nullable()
      .meta({ description: 'per-item hold end; null unless status is hold' }),
    return_reason: returnReasonSchema.nullable().meta({ description: 'set when status is returned' }),
    steam_trade_offer_id: z.string().nullable().meta({ description: 'set once an offer exists' }),
    steam_trade_offer_finished_at: timestampSchema
      .nullable()
      .meta({ description: 'when the offer was accepted or closed' }),
  })
  .meta({ id: 'OrderItem' });

/** One item of an order. */
export type OrderItem = z.infer<typeof orderItemSchema>;

/** The refund credited for an order; on the order, null means no refund credited (not: pending). */
export const refundSchema = z
  .object({
    amount_usd: usdSchema,
    refunded_at: timestampSchema,
    partial: z.boolean().meta({ description: 'true when only one leg of a multi-item order came back' }),
  })
  .meta({ id: 'Refund' });

/** The refund credited for an order. */
export type Refund = z.infer<typeof refundSchema>;

/** A buy order, as GET /orders/{id} returns it and as webhooks carry it. */
export const orderSchema = z
  .object({
    order_id: z.string(),
    app_id: z.number().int().meta({ description: 'the game the order belongs to (designed field)' }),
    steam_id: z
      .string()
      .nullable()
      .meta({ description: "where the items go; for market buy it is the end user's platform id" }),
    status: orderStatusSchema,
    custom_id: z
      .string()
      .nullable()
      .meta({ description: 'the Idempotency-Key / custom_id sent at creation' }),
    currency: z.literal('USD'),
    charged_total_usd: usdSchema.meta({ description: 'amount actually debited, 2 decimals' }),
    item_count: z.number().int().min(0).meta({ description: 'number of entries in items' }),
    delivery: orderDeliverySchema,
    expected_minutes: z.number().int().min(0).nullable().meta({
      description:
        'estimated minutes until delivery (designed); null when no estimate exists, always for Dota 2 and Rust',
    }),
    hold_until: timestampSchema.nullable().meta({
      description: 'order-level hold end; set while any item is trade-locked, derived from the items',
    }),
    claimable: z.boolean().meta({
      description:
        'true only on a hold order shortly after hold_until (a small grace follows the unlock instant); POST /orders/{id}/claim then releases it; the claim window belongs to the order: 7 days from hold_until plus the grace, after which every held item returns together (expired); present on every order (designed)',
    }),
    refund: refundSchema
      .nullable()
      .meta({ description: 'null means no refund credited (not: refund pending)' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    items: z.array(orderItemSchema),
  })
  .meta({ id: 'Order' });

/** A buy order. */
export type Order = z.infer<typeof orderSchema>;

/** Most listings one order may buy (designed: the specification gives no figure). */
export const MAX_ORDER_LISTINGS = 50;

/** An idempotency value of POST /orders and /market/buy: the body's `custom_id` or the Idempotency-Key header. */
export const customIdSchema = z.string().min(1).max(128).meta({
  description:
    'idempotency value, 1-128 characters; repeating it replays the original order. Sent as custom_id or as the Idempotency-Key header; when both are sent they must be equal, else 400 invalid_request (designed)',
});

const listingIdsSchema = z
  .array(z.string().min(1).max(128))
  .min(1)
  .max(MAX_ORDER_LISTINGS)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'listing_ids must not repeat' })
  .meta({
    description: `listings to buy, 1-${MAX_ORDER_LISTINGS} distinct ids of one game (designed shape). A listing with api_purchasable false answers 400 unsupported_item; external-market listings go one per order (400 one_external_per_order) and never with platform ones (400 cannot_mix_sources)`,
    uniqueItems: true,
  });

/** A cap in whole cents: a fraction of a cent would have to be rounded, and rounding up charges above it. */
const maxPriceSchema = z.number().positive().max(1e9).multipleOf(0.01).meta({
  description:
    'the most the whole order may cost, in whole cents (12.34; 12.345 is refused with 400, not rounded) (designed: a cap on the total); a live total above it answers 409 price_moved and nothing is charged',
});

const autoclaimSchema = z.boolean().meta({
  description: 'sticky at account level: held orders are released automatically when the hold clears',
});

/** Body of POST /orders (shape designed around the inputs the specification names); unknown fields are refused. */
export const createOrderBodySchema = z
  .strictObject({
    listing_ids: listingIdsSchema,
    custom_id: customIdSchema.optional(),
    max_price_usd: maxPriceSchema.optional(),
    autoclaim: autoclaimSchema.optional(),
    appId: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({
        description: 'game of the listings: 730 CS2 (default) or 570 Dota 2; Rust (252490) cannot be bought',
        enum: [...TRADABLE_APP_IDS],
      }),
  })
  .meta({ id: 'CreateOrderBody' });

/** Body of POST /orders. */
export type CreateOrderBody = z.infer<typeof createOrderBodySchema>;

/**
 * Body of POST /market/buy (CS2 only; shape designed around trade_url, custom_id and autoclaim);
 * unknown fields are refused, but appId is accepted and ignored: the endpoint does not read it.
 */
export const marketBuyBodySchema = z
  .strictObject({
    listing_ids: listingIdsSchema,
    trade_url: z.string().min(1).max(2048).meta({
      description: "the end user's trade URL; the service checks it and answers 400 invalid_trade_url",
    }),
    custom_id: customIdSchema.optional(),
    max_price_usd: maxPriceSchema.optional(),
    autoclaim: autoclaimSchema.optional(),
    appId: z.unknown().optional().meta({
      description: 'ignored, whatever its value: this endpoint is CS2 only and does not read appId',
    }),
  })
  .meta({ id: 'MarketBuyBody' });

/** Body of POST /market/buy. */
export type MarketBuyBody = z.infer<typeof marketBuyBodySchema>;

/** Headers of POST /orders and /market/buy, names lower-cased as Node delivers them. */
export const orderHeadersSchema = z.object({ 'idempotency-key': customIdSchema.optional() });

/** Headers of POST /orders and /market/buy. */
export type OrderHeaders = z.infer<typeof orderHeadersSchema>;

/** Query of GET /orders (designed): one game, newest first, keyset-paged like /transactions. */
export const ordersQuerySchema = z.object({
  appId: appIdParam.optional(),
  status: orderStatusSchema.optional(),
  custom_id: customIdSchema.optional(),
  ...changeFeedQuery,
});

/** Query of GET /orders. */
export type OrdersQuery = z.infer<typeof ordersQuerySchema>;

/** One page of GET /orders (designed: the shape of /transactions). */
export const orderPageSchema = z
  .object({
    data: z.array(orderSchema),
    meta: z.object({ next_cursor: z.string().nullable().meta({ description: 'null on the last page' }) }),
  })
  .meta({ id: 'OrderPage' });

/** One page of GET /orders. */
export type OrderPage = z.infer<typeof orderPageSchema>;

/** Query of GET /orders/info: look an order up by the custom_id it was created with. */
export const orderInfoQuerySchema = z.object({
  custom_id: customIdSchema,
  appId: appIdParam.optional(),
});

/** Query of GET /orders/info. */
export type OrderInfoQuery = z.infer<typeof orderInfoQuerySchema>;

/** Query of GET /orders/{id} and POST /orders/{id}/claim: the game the order belongs to. */
export const orderLookupQuerySchema = z.object({ appId: appIdParam.optional() });

/** Query of GET /orders/{id} and POST /orders/{id}/claim. */
export type OrderLookupQuery = z.infer<typeof orderLookupQuerySchema>;

/** Path parameters of /orders/{id} and /orders/{id}/claim. */
export const orderParamsSchema = z.object({ id: z.string().min(1).max(128) });

/** Path parameters of /orders/{id}. */
export type OrderParams = z.infer<typeof orderParamsSchema>;

/**
 * Response of POST /orders/{id}/claim: the order after the claim (designed), now `delivering`
 * with a trade offer to accept within about 15 minutes, or unchanged for orders that deliver
 * automatically (a harmless no-op).
 */
export const claimResponseSchema = orderSchema;

/** Response of POST /orders/{id}/claim. */
export type ClaimResponse = Order;
