/**
 * P2P selling: the seller's inventory, publishing copies idempotently (one or a batch of 1-50),
 * repricing, unlisting, and paging the account's listings. A publish whose outcome is unknown is
 * sent again only with the same Idempotency-Key, which the server answers by replaying it.
 */
import {
  idempotencyKeySchema,
  type P2PInventoryResponse,
  type P2PListing,
  type P2PListingDeleted,
  type P2PListingPage,
  type P2PPublishItem,
  type P2PPublishResult,
  p2pInventoryResponseSchema,
  p2pListingDeletedSchema,
  p2pListingPageSchema,
  p2pListingSchema,
  p2pPublishBatchResponseSchema,
} from '../../contract/p2p.js';
import {
  checkIdempotencyKey,
  checkNumber,
  checkObject,
  checkOptionalObject,
  checkString,
} from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { ClientArgumentError } from '../errors.js';
import { metaPages, metaRows } from '../paginate.js';
import type { P2PListingsParams } from '../query-params.js';
import type { Transport } from '../transport.js';

/** How a publish is sent. */
export interface PublishOptions extends RequestOptions {
  /**
   * Sent as the Idempotency-Key header on every attempt, 8-128 characters, unique per publish
   * request. Keep it until the answer is in: the same key replays what was published.
   */
  idempotencyKey: string;
}

/** The listing of a single publish. */
export interface PublishedListing {
  listing: P2PListing;
  /** True when the key had already published this copy (200 with `Idempotent-Replay: true`). */
  replayed: boolean;
}

/** The outcome of a batch publish: one result per item, in request order. */
export interface PublishedBatch {
  /** A failed item carries the status and error body it would have answered alone. */
  data: P2PPublishResult[];
  /** True when every item had already been published under the key. */
  replayed: boolean;
}

const PUBLISH_EXAMPLE =
  'client.p2p.publish({ operational_asset_id, asset_revision, price_usd: 12.5 }, { idempotencyKey: randomUUID() })';
const PUBLISH_BATCH_EXAMPLE =
  'client.p2p.publishBatch([{ operational_asset_id, asset_revision, price_usd }], { idempotencyKey: randomUUID() })';

/** The P2P endpoints over a shared {@link Transport}. */
export class P2PResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /p2p/inventory`: one row per copy, with the inventory proof (pending: call again after retry_after_ms). */
  inventory(options: RequestOptions = {}): Promise<P2PInventoryResponse> {
    checkOptionalObject('p2p.inventory', 'options', options);
    return this.transport.get('/p2p/inventory', {}, p2pInventoryResponseSchema, options);
  }

  /**
   * `POST /p2p/listings` with one copy: 201 with the listing, or the earlier listing on a replay.
   * Retried with the same key on 429, 503 and network errors (also after a timeout or 5xx, whose
   * outcome the replay settles); never on a 409 or 422, which are thrown as they are.
   * @example const { listing } = await client.p2p.publish({ operational_asset_id, asset_revision, price_usd: 12.5 }, { idempotencyKey: randomUUID() });
   */
  async publish(item: P2PPublishItem, options: PublishOptions): Promise<PublishedListing> {
    checkObject('p2p.publish', 'item', item, PUBLISH_EXAMPLE);
    checkIdempotencyKey('p2p.publish', options, PUBLISH_EXAMPLE);
    const answer = await this.transport.keyed({
      ...this.publishing('p2p.publish', item, options),
      schema: p2pListingSchema,
    });
    return { listing: answer.data, replayed: answer.replayed };
  }

  /**
   * `POST /p2p/listings` with 1-50 copies: always one result per item, a failed item not stopping
   * the others; a replay with the same key answers the items already published instead of listing
   * them twice. Retried like {@link publish}.
   */
  async publishBatch(items: P2PPublishItem[], options: PublishOptions): Promise<PublishedBatch> {
    if (!Array.isArray(items))
      checkObject('p2p.publishBatch', 'items (an array)', items, PUBLISH_BATCH_EXAMPLE);
    checkIdempotencyKey('p2p.publishBatch', options, PUBLISH_BATCH_EXAMPLE);
    const request = this.publishing('p2p.publishBatch', { items }, options);
    const answer = await this.transport.keyed({ ...request, schema: p2pPublishBatchResponseSchema });
    return { data: answer.data.data, replayed: answer.replayed };
  }

  /** `PATCH /p2p/listings/{id}`: a new price for an active listing; commission and payout are recomputed. Never retried. */
  reprice(id: string, priceUsd: number, options: RequestOptions = {}): Promise<P2PListing> {
    checkString('p2p.reprice', 'id', id);
    checkNumber('p2p.reprice', 'priceUsd', priceUsd);
    checkOptionalObject('p2p.reprice', 'options', options);
    return this.transport.json({
      method: 'PATCH',
      path: listingPath(id),
      body: { price_usd: priceUsd },
      schema: p2pListingSchema,
      signal: options.signal,
    });
  }

  /** `DELETE /p2p/listings/{id}`: withdraws an active or reconciliation_required listing, which is then no longer one. Never retried. */
  unlist(id: string, options: RequestOptions = {}): Promise<P2PListingDeleted> {
    checkString('p2p.unlist', 'id', id);
    checkOptionalObject('p2p.unlist', 'options', options);
    return this.transport.json({
      method: 'DELETE',
      path: listingPath(id),
      schema: p2pListingDeletedSchema,
      signal: options.signal,
    });
  }

  /** `GET /p2p/listings`: one page of the account's listings, newest first (`updated_after`: the change feed). */
  listings(query: P2PListingsParams = {}, options: RequestOptions = {}): Promise<P2PListingPage> {
    checkOptionalObject('p2p.listings', 'query', query);
    checkOptionalObject('p2p.listings', 'options', options);
    return this.transport.get('/p2p/listings', query, p2pListingPageSchema, options);
  }

  /** Every page of `GET /p2p/listings` from `query.cursor` (or the first) to the last. */
  readonly listingPages = (query: P2PListingsParams = {}) => metaPages((q) => this.listings(q), query);

  /** Every listing matching `query`, across all pages. */
  readonly allListings = (query: P2PListingsParams = {}) => metaRows((q) => this.listings(q), query);

  private publishing(call: string, body: unknown, options: PublishOptions) {
    const { idempotencyKey, signal } = options;
    if (!idempotencyKeySchema.safeParse(idempotencyKey).success) {
      throw new ClientArgumentError(
        `${call}: the idempotency key must be 8-128 characters, got ${idempotencyKey.length}`,
      );
    }
    return {
      method: 'POST' as const,
      path: '/p2p/listings',
      body,
      idempotencyKey,
      replaysByKey: true,
      signal,
    };
  }
}

function listingPath(id: string): string {
  return `/p2p/listings/${encodeURIComponent(id)}`;
}
