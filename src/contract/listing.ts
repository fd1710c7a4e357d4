/** Listings: the Listing resource, the `/listings` query, and the listing stream's events. */
import { z } from 'zod';
import {
  appIdParam,
  cursorSchema,
  pageOf,
  queryInteger,
  queryNumber,
  queryText,
  timestampQuery,
  timestampSchema,
  usdSchema,
} from './common.js';

/** The five CS2 wear names, best to worst. */
export const WEARS = ['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred'] as const;
export const wearSchema = z.enum(WEARS).meta({ description: 'CS2 wear' });
export type Wear = z.infer<typeof wearSchema>;

/** How a listing is fulfilled. */
export const DELIVERIES = ['instant', 'up_to_12h', 'hold'] as const;
export const deliverySchema = z.enum(DELIVERIES).meta({
  description:
    'instant (bot fulfilment, seconds to minutes), up_to_12h (a human seller must send the trade), hold (inside a platform trade lock until tradable_at; once the lock has ended on the service clock the listing no longer reads hold)',
});
export type Delivery = z.infer<typeof deliverySchema>;

/** The orderings of `/listings`. */
export const LISTING_SORTS = ['id', 'newest', 'price_asc', 'price_desc'] as const;
export type ListingSort = (typeof LISTING_SORTS)[number];

export const stickerSchema = z
  .object({
    name: z.string(),
    image: z.url(),
    slot: z.number().int().min(0).max(4),
    wear: z.number().min(0).max(1).meta({ description: 'scrape wear, 0 pristine to 1 scraped off' }),
  })
  .meta({ id: 'Sticker' });
export type Sticker = z.infer<typeof stickerSchema>;

/** A live buyable listing. Dota 2 and Rust rows carry null in the CS2-only fields. */
export const listingSchema = z
  .object({
    id: z.string().meta({ description: 'listing id; belongs to its game' }),
    market_hash_name: z.string(),
    wear: wearSchema.nullable(),
    doppler_phase: z.string().nullable(),
    float_value: z.number().nullable(),
    paint_seed: z.number().int().nullable(),
    stickers: z.array(stickerSchema),
    price_usd: usdSchema.meta({ description: 'asking price in USD' }),
    category: z.string().meta({ example: 'Rifle' }),
    rarity: z.string().meta({ example: 'Covert' }),
    image: z.url(),
    inspect_link: z.string().nullable(),
    tradable: z.boolean(),
    tradable_at: timestampSchema.nullable().meta({ description: 'when the platform trade lock ends' }),
    delivery: deliverySchema,
    refund_percent: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .meta({ description: 'share refundable on a reversal; null when no figure is published' }),
    listed_at: timestampSchema
      .nullable()
      .meta({ description: 'when the item entered the catalogue (re-listings get a new value)' }),
    source: z.enum(['platform', 'external', 'p2p']).optional().meta({
      description:
        'additive: platform for the marketplace’s own items, external for items offered from an external market (at most one per order, never mixed with platform items), p2p for an item a user lists from their own inventory (delivered by the seller’s own trade offer, delivery up_to_12h)',
    }),
    api_purchasable: z.boolean().optional().meta({
      description: 'additive: false when the item cannot be bought through the API (400 unsupported_item)',
    }),
  })
  .meta({ id: 'Listing' });
export type Listing = z.infer<typeof listingSchema>;

export const listingPageSchema = pageOf(listingSchema).meta({ id: 'ListingPage' });

const onlyOrExclude = z.enum(['only', 'exclude']);

/** How a CS2-only query parameter says so: with another appId it is refused. */
export const CS2_ONLY = 'CS2 only: with another appId it is 400 invalid_param';

/** Filters shared by `/listings` and `/listings/stream`. */
export const listingFilterShape = {
  name: queryText(300).meta({ description: 'exact market_hash_name, case-insensitive; wins over search' }),
  category: queryText(),
  rarity: queryText(),
  wear: wearSchema.meta({ description: `CS2 wear; ${CS2_ONLY}` }),
  min_price: queryNumber(0, 1e9),
  max_price: queryNumber(0, 1e9),
  stat_trak: onlyOrExclude.meta({ description: CS2_ONLY }),
  souvenir: onlyOrExclude.meta({ description: CS2_ONLY }),
  delivery: deliverySchema,
  min_refund_percent: queryNumber(0, 100).meta({
    description: '0-100; listings without a published figure are excluded',
  }),
};

/** Query of `GET /listings`. Unknown parameters are ignored, as clients ignore unknown fields. */
export const listingsQuerySchema = z.object({
  appId: appIdParam.optional(),
  search: queryText().optional().meta({ description: 'full-text match on market hash name' }),
  ...partial(listingFilterShape),
  min_float: queryNumber(0, 1).optional().meta({ description: CS2_ONLY }),
  max_float: queryNumber(0, 1).optional().meta({ description: CS2_ONLY }),
  available_after: timestampQuery()
    .optional()
    .meta({
      description: `only listings that entered the catalogue after this RFC 3339 instant (2026-11-21T12:00:00Z; seconds may be left out); pair with sort=newest; ${CS2_ONLY}`,
    }),
  sort: z.enum(LISTING_SORTS).optional().meta({
    description:
      'id (default), newest (CS2 only: with another appId, 400 invalid_param), price_asc, price_desc',
  }),
  cursor: cursorSchema.optional(),
  limit: queryInteger(1, 200).optional().meta({ description: '1-200, default 50' }),
});
export type ListingsQuery = z.infer<typeof listingsQuerySchema>;

/** Query of `GET /listings/stream` (CS2 only; appId is not read). */
export const streamQuerySchema = z.object({
  ...partial(listingFilterShape),
  last_event_id: z.string().max(200).optional().meta({
    description: 'resume point; use only when the Last-Event-ID header cannot be sent',
  }),
});
export type StreamQuery = z.infer<typeof streamQuerySchema>;

/** A timestamp query parameter: ISO 8601 with an offset or Z, seconds optional. */
function partial<T extends z.ZodRawShape>(shape: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, (v as z.ZodType).optional()])) as never;
}
