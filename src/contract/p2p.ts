/** P2P: the seller's inventory with its proof, P2P listings, and the bodies and answers of /p2p. */
import { z } from 'zod';
import { changeFeedQuery, timestampSchema, usdSchema } from './common.js';

/** Limits of P2P publishing, as the specification states them. */
export const P2P_LIMITS = {
  /** Items one batch publish may carry. */
  maxBatchItems: 50,
  /** Lowest price in USD. */
  minPriceUsd: 0.1,
  /** Highest price in USD. */
  maxPriceUsd: 100_000,
  /** Shortest Idempotency-Key. */
  minIdempotencyKeyLength: 8,
  /** Longest Idempotency-Key. */
  maxIdempotencyKeyLength: 128,
} as const;

/**
 * Why an inventory copy cannot be listed (values designed here). Responses carry plain strings,
 * so a client keeps working when a reason is added.
 */
export const UNLISTABLE_REASONS = [
  'not_tradable',
  'trade_locked',
  'not_marketable',
  'unsupported_item',
  'already_listed',
  'inventory_not_ready',
] as const;

/** One copy of an item in the seller's CS2 inventory. */
export const p2pInventoryItemSchema = z
  .object({
    asset_id: z.string().meta({ description: 'one row per copy; tells copies of the same item apart' }),
    app_id: z.number().int().meta({ description: 'always 730: P2P is CS2 only (designed field)' }),
    operational_asset_id: z.string().max(256).meta({ description: 'sent unchanged to POST /p2p/listings' }),
    asset_revision: z.string().min(16).max(128).meta({ description: 'sent unchanged to POST /p2p/listings' }),
    market_hash_name: z.string(),
    market_usd: usdSchema.nullable().meta({
      description: 'market price when one is known (designed); the lowest allowed price is half of it',
    }),
    floor_usd: usdSchema.nullable().meta({
      description:
        'lowest price accepted for this copy, whole cents (designed); null when no market price exists',
    }),
    listable: z.boolean().meta({ description: 'whether the copy can be published now' }),
    reasons: z.array(z.string()).meta({
      description: `why the copy is not listable; empty when listable. Values (designed): ${UNLISTABLE_REASONS.join(', ')}`,
    }),
    listed: z.boolean().meta({ description: 'the copy already has a listing' }),
    listing_id: z.string().nullable().meta({ description: 'the listing of the copy when listed (designed)' }),
  })
  .meta({ id: 'P2PInventoryItem' });

/** One copy of an item in the seller's inventory. */
export type P2PInventoryItem = z.infer<typeof p2pInventoryItemSchema>;

/** The states of the inventory proof. */
export const INVENTORY_PROOF_STATUSES = ['ready', 'pending', 'blocked'] as const;

/** Codes of a blocked inventory proof: what the seller must fix (values designed here). */
export const INVENTORY_BLOCK_CODES = ['inventory_private', 'trade_banned', 'steam_guard_required'] as const;

/** Whether a current read of the platform inventory is held, so publishing is allowed. */
export const inventoryProofSchema = z
  .object({
    status: z.enum(INVENTORY_PROOF_STATUSES).meta({
      description:
        'ready (publishing allowed), pending (call again after retry_after_ms), blocked (see code)',
    }),
    retry_after_ms: z.number().int().min(0).nullable().meta({ description: 'set when status is pending' }),
    code: z
      .string()
      .nullable()
      .meta({
        description: `set when status is blocked: what to fix on the seller's side. Values (designed): ${INVENTORY_BLOCK_CODES.join(', ')}`,
      }),
    checked_at: timestampSchema.nullable().meta({
      description: 'when the held inventory read was taken (designed); null while no read is held',
    }),
  })
  .meta({ id: 'InventoryProof' });

/** Whether a current read of the platform inventory is held. */
export type InventoryProof = z.infer<typeof inventoryProofSchema>;

/** Response of GET /p2p/inventory. */
export const p2pInventoryResponseSchema = z
  .object({
    data: z.array(p2pInventoryItemSchema),
    inventory_proof: inventoryProofSchema.nullable().meta({
      description: 'null when the account has no linked platform account, so no inventory exists (designed)',
    }),
  })
  .meta({ id: 'P2PInventory' });

/** Response of GET /p2p/inventory. */
export type P2PInventoryResponse = z.infer<typeof p2pInventoryResponseSchema>;

/** A P2P price: 0.10 to 100000 USD in whole cents; 12.345 is refused, not rounded. */
export const p2pPriceSchema = z
  .number()
  .min(P2P_LIMITS.minPriceUsd)
  .max(P2P_LIMITS.maxPriceUsd)
  .multipleOf(0.01)
  .meta({ description: 'USD, 0.10 to 100000, multiple of 0.01; not under half the market price' });

/** One item to publish. */
export const p2pPublishItemSchema = z
  .strictObject({
    operational_asset_id: z.string().min(1).max(256),
    asset_revision: z.string().min(16).max(128),
    price_usd: p2pPriceSchema,
  })
  .meta({ id: 'P2PPublishItem' });

/** One item to publish. */
export type P2PPublishItem = z.infer<typeof p2pPublishItemSchema>;

/**
 * An item of a batch as sent: documented as a P2PPublishItem, taken as anything, and checked on
 * its own by the service so that a malformed item fails alone.
 */
export const p2pBatchItemSchema = z.union([p2pPublishItemSchema, z.unknown()]).meta({
  description:
    'a P2PPublishItem; each is checked on its own: a malformed one fails alone (status 400 in its result) and does not stop the others',
});

/**
 * A batch publish: 1 to 50 items, each answered on its own. Only a body that is not a batch at all
 * (no items array, or 0 or more than 50 items) is refused whole.
 */
export const p2pPublishBatchSchema = z
  .strictObject({ items: z.array(p2pBatchItemSchema).min(1).max(P2P_LIMITS.maxBatchItems) })
  .meta({ id: 'P2PPublishBatch' });

/** A batch publish. */
export type P2PPublishBatch = z.infer<typeof p2pPublishBatchSchema>;

/** Body of POST /p2p/listings: one item, or `{ items }`; a body with `items` is always a batch. */
export const p2pPublishBodySchema = z.union([p2pPublishBatchSchema, p2pPublishItemSchema]);

/** Body of POST /p2p/listings. */
export type P2PPublishBody = z.infer<typeof p2pPublishBodySchema>;

/** True when a publish body is a batch. */
export function isPublishBatch(body: P2PPublishBody): body is P2PPublishBatch {
  return 'items' in body;
}

/** The Idempotency-Key of POST /p2p/listings: 8-128 characters, unique per publish request. */
export const idempotencyKeySchema = z
  .string()
  .min(P2P_LIMITS.minIdempotencyKeyLength)
  .max(P2P_LIMITS.maxIdempotencyKeyLength)
  .meta({ description: 'unique per publish request, 8-128 characters' });

/** Headers of POST /p2p/listings, names lower-cased as Node delivers them; the key is required. */
export const p2pPublishHeadersSchema = z.object({ 'idempotency-key': idempotencyKeySchema });

/** Headers of POST /p2p/listings. */
export type P2PPublishHeaders = z.infer<typeof p2pPublishHeadersSchema>;

/**
 * The states of a P2P listing, the specification's five and no more (its versioning rule keeps
 * the status vocabulary). A listing that ends (sold and settled, withdrawn with DELETE, or its
 * sale cancelled) is no longer a listing: no answer carries it.
 */
export const P2P_LISTING_STATUSES = [
  'active',
  'trade_pending',
  'trade_sent',
  'verification_hold',
  'reconciliation_required',
] as const;

/** A P2P listing's status; trade_pending, trade_sent and verification_hold are sold and mid-delivery. */
export const p2pListingStatusSchema = z.enum(P2P_LISTING_STATUSES).meta({
  description:
    'active (on the shelf) → trade_pending (bought; the seller is to send) → trade_sent (the seller’s offer is out) → verification_hold (accepted; inside the platform’s trade protection). reconciliation_required: a full inventory read no longer showed the copy. A listing that ends is no longer a listing (it leaves GET /p2p/listings; PATCH, DELETE and a publish replay answer 404 not_found): when the hold ends it is sold and the seller’s payout is a sale row of GET /transactions whose order_id is the listing id; a declined, timed-out or rolled-back offer (or a copy that could not be sent) cancels the sale and refunds the buyer’s order (order.updated); DELETE withdraws it',
});

/** A P2P listing's status. */
export type P2PListingStatus = z.infer<typeof p2pListingStatusSchema>;

/** A seller's P2P listing. */
export const p2pListingSchema = z
  .object({
    id: z.string().meta({ description: 'used with PATCH and DELETE /p2p/listings/{id}' }),
    status: p2pListingStatusSchema,
    price_usd: usdSchema.meta({ description: 'what the buyer pays, whole cents' }),
    commission_usd: usdSchema.meta({ description: "the service's fee, taken from the seller's side" }),
    seller_payout_usd: usdSchema.meta({
      description: 'price_usd minus commission_usd; credited to the balance on a sale',
    }),
    asset_id: z.string().meta({ description: 'asset id of the listed copy' }),
    market_hash_name: z.string(),
    needs_resync: z.boolean().meta({
      description:
        'true when the inventory no longer showed the item; cannot be revived in place, publish again once the item is back',
    }),
    order_id: z.string().nullable().meta({ description: 'the buyer’s order once sold (designed)' }),
    trade_offer_id: z
      .string()
      .nullable()
      .meta({ description: 'the seller’s trade offer to the buyer once sent (designed)' }),
    end_reason: z.string().nullable().meta({
      description:
        'always null (designed in an earlier version for the end of a cancelled sale; a listing that ends is no longer answered)',
    }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'P2PListing' });

/** A seller's P2P listing. */
export type P2PListing = z.infer<typeof p2pListingSchema>;

/** One item's outcome in a batch publish (designed): the status and code it would have answered alone. */
export const p2pPublishResultSchema = z
  .object({
    index: z.number().int().min(0).meta({ description: 'position of the item in the request' }),
    ok: z.boolean(),
    status: z
      .number()
      .int()
      .meta({ description: 'HTTP status the item would have answered alone: 201, 200 on replay, 4xx' }),
    replayed: z.boolean().meta({ description: 'true when the item was already published under this key' }),
    listing: p2pListingSchema.nullable().meta({ description: 'set when ok' }),
    error: z.looseObject({ code: z.string(), detail: z.string() }).nullable().meta({
      description:
        'set when not ok: the error body the item would have answered alone, extra fields included',
    }),
  })
  .meta({ id: 'P2PPublishResult' });

/** One item's outcome in a batch publish. */
export type P2PPublishResult = z.infer<typeof p2pPublishResultSchema>;

/** Response of a batch POST /p2p/listings: always 200, one result per item, in request order. */
export const p2pPublishBatchResponseSchema = z
  .object({ data: z.array(p2pPublishResultSchema) })
  .meta({ id: 'P2PPublishBatchResponse' });

/** Response of a batch publish. */
export type P2PPublishBatchResponse = z.infer<typeof p2pPublishBatchResponseSchema>;

/** Body of PATCH /p2p/listings/{id}: the new price; only active listings can be repriced. */
export const p2pRepriceBodySchema = z
  .strictObject({ price_usd: p2pPriceSchema })
  .meta({ id: 'P2PRepriceBody' });

/** Body of PATCH /p2p/listings/{id}. */
export type P2PRepriceBody = z.infer<typeof p2pRepriceBodySchema>;

/** Query of GET /p2p/listings (designed): the seller's own listings that have not ended, newest first. */
export const p2pListingsQuerySchema = z.object({
  status: p2pListingStatusSchema.optional(),
  ...changeFeedQuery,
});

/** Query of GET /p2p/listings. */
export type P2PListingsQuery = z.infer<typeof p2pListingsQuerySchema>;

/** One page of GET /p2p/listings (designed: the shape of /transactions). */
export const p2pListingPageSchema = z
  .object({
    data: z.array(p2pListingSchema),
    meta: z.object({ next_cursor: z.string().nullable().meta({ description: 'null on the last page' }) }),
  })
  .meta({ id: 'P2PListingPage' });

/** One page of GET /p2p/listings. */
export type P2PListingPage = z.infer<typeof p2pListingPageSchema>;

/**
 * Response of DELETE /p2p/listings/{id} (designed): the listing is withdrawn and is no longer a
 * listing (GET no longer answers it); only an active or reconciliation_required listing can be deleted.
 */
export const p2pListingDeletedSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'P2PListingDeleted' });

/** Response of DELETE /p2p/listings/{id}. */
export type P2PListingDeleted = z.infer<typeof p2pListingDeletedSchema>;

/** Path parameters of /p2p/listings/{id}. */
export const p2pListingParamsSchema = z.object({ id: z.string().min(1).max(128) });
