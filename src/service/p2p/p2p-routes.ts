/** The P2P routes: the seller's inventory, publishing, repricing, delisting and paging listings (any valid key). */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { usdToCents } from '../../contract/common.js';
import {
  isPublishBatch,
  p2pInventoryResponseSchema,
  p2pListingDeletedSchema,
  p2pListingPageSchema,
  p2pListingParamsSchema,
  p2pListingSchema,
  p2pListingsQuerySchema,
  p2pPublishBatchResponseSchema,
  p2pPublishBodySchema,
  p2pPublishHeadersSchema,
  p2pRepriceBodySchema,
} from '../../contract/p2p.js';
import { authOf } from '../http/authenticate.js';
import { keysetPage, pageKeyset } from '../http/change-feed.js';
import { AUTH_ERRORS, errorResponses } from '../http/openapi.js';
import { listingJson } from './listing-record.js';
import { LISTING_ERRORS, type P2P } from './p2p.js';
import { publishBatch } from './publish-batch.js';
import { PUBLISH_ERRORS } from './publishing.js';

/** Cursor tag of listing pages (letters only). */
const CURSOR_TAG = 'plistings';

/** Registers the P2P routes. */
export function registerP2PRoutes(app: FastifyInstance, p2p: P2P): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['p2p'];

  api.get(
    '/p2p/inventory',
    {
      schema: {
        operationId: 'getP2PInventory',
        summary: "The seller's CS2 inventory, one row per copy, with the inventory proof",
        description:
          'Every call is a full read of the platform inventory: the first read of a fresh inventory is pending for about 5 seconds of service clock (retry_after_ms), a private or trade-banned inventory is blocked with a code, and a ready read lists every copy. An active listing whose copy the read no longer shows leaves the shelf (reconciliation_required, needs_resync true, a gone event on the stream).',
        tags,
        response: { 200: p2pInventoryResponseSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => p2p.inventory(authOf(request).account),
  );

  api.post(
    '/p2p/listings',
    {
      config: { rate: 'p2p_write', requires: ['platform_account'] },
      schema: {
        operationId: 'publishP2PListings',
        summary: 'Publish one copy (201) or a batch of 1-50 (always 200, one result per item)',
        description:
          'Idempotency-Key (8-128 characters) is required. Per item: the same key with the same revision and price replays the published listing (200, Idempotent-Replay: true), or answers 404 not_found once that listing has ended (the key stays bound to it, so the copy is never listed twice under one key); with another price or revision it is 409 idempotency_key_mismatch. A refused item wrote nothing and leaves the key free for it (bad input, not_found, unsupported_item, asset_revision_changed, already_listed, price_below_market, a proof that is not ready): the same request again is checked again and answers as the copy is then. The listing enters the public catalogue under its id (source p2p, delivery up_to_12h). Commission: 5% of the price, rounded half up to the cent, at least 0.01.',
        tags,
        headers: p2pPublishHeadersSchema,
        body: p2pPublishBodySchema,
        response: {
          200: p2pListingSchema.or(p2pPublishBatchResponseSchema),
          201: p2pListingSchema,
          ...errorResponses(...AUTH_ERRORS, ...PUBLISH_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { account } = authOf(request);
      const body = request.body;
      const key = request.headers['idempotency-key'];
      if (isPublishBatch(body)) {
        const results = await publishBatch(p2p, account, key, body.items);
        if (results.every((r) => r.ok && r.replayed)) reply.header('idempotent-replay', 'true');
        return reply.code(200).send({ data: results });
      }
      const [outcome] = await p2p.publish(account, key, [body]);
      if (!outcome) throw new Error('publishing answered no outcome');
      if (!outcome.ok) throw outcome.error;
      if (outcome.replayed) reply.header('idempotent-replay', 'true');
      return reply.code(outcome.status).send(listingJson(outcome.listing));
    },
  );

  api.patch(
    '/p2p/listings/:id',
    {
      config: { rate: 'p2p_write' },
      schema: {
        operationId: 'repriceP2PListing',
        summary: 'Reprice an active listing; commission and payout are recomputed',
        description:
          'Same price rules as publishing. A listing mid-sale (trade_pending, trade_sent, verification_hold) or reconciliation_required answers 409 listing_not_active with its status; one that has ended (sold, withdrawn, or its sale cancelled) is no longer a listing: 404 not_found.',
        tags,
        params: p2pListingParamsSchema,
        body: p2pRepriceBodySchema,
        response: {
          200: p2pListingSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'invalid_request', ...LISTING_ERRORS.reprice),
        },
      },
    },
    async (request) =>
      listingJson(
        await p2p.reprice(authOf(request).account, request.params.id, usdToCents(request.body.price_usd)),
      ),
  );

  api.delete(
    '/p2p/listings/:id',
    {
      config: { rate: 'p2p_write' },
      schema: {
        operationId: 'delistP2PListing',
        summary: 'Withdraw an active or reconciliation_required listing; it is then no longer a listing',
        description:
          'The listing leaves the shelf and GET /p2p/listings, and its copy can be published again. A listing mid-sale answers 409 listing_not_active with its status; one that has ended (sold, withdrawn, or its sale cancelled) answers 404 not_found.',
        tags,
        params: p2pListingParamsSchema,
        response: {
          200: p2pListingDeletedSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...LISTING_ERRORS.delist),
        },
      },
    },
    async (request) => {
      const record = await p2p.delist(authOf(request).account, request.params.id);
      return { id: record.id, deleted: true as const };
    },
  );

  api.get(
    '/p2p/listings',
    {
      schema: {
        operationId: 'listP2PListings',
        summary: "The account's P2P listings, newest first, or changed after an instant",
        description:
          'The listings that have not ended, newest first by default, optionally of one status; every status is one of the specification’s five. With updated_after it is the change feed: only listings whose updated_at is strictly later, oldest change first (updated_at, then id); poll from the greatest updated_at seen minus a few seconds and dedupe on (id, updated_at). A listing that ends leaves the list without a last row: a sale is settled as the seller’s sale row of GET /transactions (order_id is the listing id), a cancelled sale refunds the buyer’s order (order.updated) and leaves the copy in the seller’s inventory, and a DELETE answered deleted: true.',
        tags,
        querystring: p2pListingsQuerySchema,
        response: { 200: p2pListingPageSchema, ...errorResponses(...AUTH_ERRORS, 'invalid_param') },
      },
    },
    async (request) => {
      const query = request.query;
      const limit = query.limit ?? 50;
      const keyset = pageKeyset(CURSOR_TAG, query.updated_after, query.cursor);
      const rows = await p2p.listings({
        accountId: authOf(request).account.id,
        status: query.status,
        ...keyset,
        limit,
      });
      return keysetPage(CURSOR_TAG, keyset, rows, limit, listingJson);
    },
  );
}
