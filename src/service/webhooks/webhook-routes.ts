/** The webhook routes: endpoints with their health, test, secret rotation, deliveries and their retry. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  createWebhookBodySchema,
  createWebhookResponseSchema,
  deliveriesQuerySchema,
  deliveryPageSchema,
  deliveryParamsSchema,
  deliveryRetryResponseSchema,
  rotateWebhookSecretResponseSchema,
  updateWebhookBodySchema,
  webhookDeletedSchema,
  webhookListSchema,
  webhookParamsSchema,
  webhookResponseSchema,
  webhookTestResultSchema,
} from '../../contract/webhook.js';
import { authOf } from '../http/authenticate.js';
import type { ZodApi } from '../http/feature.js';
import { AUTH_ERRORS, errorResponses } from '../http/openapi.js';
import { parseSeqCursor, seqCursor } from '../http/seq-cursor.js';
import { deliveryJson, endpointJson, endpointWithSecretJson } from './webhook-json.js';
import { WEBHOOK_ERRORS, type Webhooks } from './webhooks.js';

const TAGS = ['webhooks'];

/** Registers the webhook routes (any valid key). */
export function registerWebhookRoutes(app: FastifyInstance, webhooks: Webhooks): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listWebhooks(api, webhooks);
  createWebhook(api, webhooks);
  updateWebhook(api, webhooks);
  deleteWebhook(api, webhooks);
  testWebhook(api, webhooks);
  rotateWebhookSecret(api, webhooks);
  listDeliveries(api, webhooks);
  retryDelivery(api, webhooks);
}

/** GET /webhooks: the account's endpoints with their health. */
function listWebhooks(api: ZodApi, webhooks: Webhooks): void {
  api.get(
    '/webhooks',
    {
      schema: {
        summary: "The account's webhook endpoints with their health, oldest first",
        tags: TAGS,
        response: { 200: webhookListSchema, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: webhooks.list(authOf(request).account.id).map(endpointJson) }),
  );
}

/** POST /webhooks: registers an endpoint and answers its secret, once. */
function createWebhook(api: ZodApi, webhooks: Webhooks): void {
  api.post(
    '/webhooks',
    {
      schema: {
        summary: 'Register an HTTPS endpoint; the answer carries its signing secret, once',
        description:
          'The URL must be absolute HTTPS without credentials, and every address its host resolves to public unicast (400 invalid_webhook_url otherwise, also for a host that does not resolve). events defaults to ["order.updated"]; an unknown type is 400 invalid_request. At most 5 endpoints per account (409 too_many_webhooks).',
        tags: TAGS,
        body: createWebhookBodySchema,
        response: {
          201: createWebhookResponseSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_request', ...WEBHOOK_ERRORS.create),
        },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(authOf(request).account.id, request.body);
      return reply.code(201).send({ data: endpointWithSecretJson(created) });
    },
  );
}

/** PATCH /webhooks/{id}: changes an endpoint. */
function updateWebhook(api: ZodApi, webhooks: Webhooks): void {
  api.patch(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Change url, events, enabled or description; re-enabling resets the failure counter',
        description:
          'Re-enabling an endpoint (enabled true after it was disabled) resets consecutive_failures to 0 and resumes its queued deliveries.',
        tags: TAGS,
        params: webhookParamsSchema,
        body: updateWebhookBodySchema,
        response: {
          200: webhookResponseSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', 'invalid_request', ...WEBHOOK_ERRORS.update),
        },
      },
    },
    async (request) => {
      const { account } = authOf(request);
      return { data: endpointJson(await webhooks.update(account.id, request.params.id, request.body)) };
    },
  );
}

/** DELETE /webhooks/{id}: removes an endpoint with its deliveries. */
function deleteWebhook(api: ZodApi, webhooks: Webhooks): void {
  api.delete(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Remove an endpoint with its deliveries',
        tags: TAGS,
        params: webhookParamsSchema,
        response: {
          200: webhookDeletedSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...WEBHOOK_ERRORS.endpoint),
        },
      },
    },
    async (request) => {
      await webhooks.remove(authOf(request).account.id, request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
}

/** POST /webhooks/{id}/test: sends a webhook.test event now. */
function testWebhook(api: ZodApi, webhooks: Webhooks): void {
  api.post(
    '/webhooks/:id/test',
    {
      schema: {
        summary: 'Send a webhook.test event now; answers the real HTTP status and error text seen',
        description:
          'Synchronous (the receiver has 10 seconds); the URL is checked again first. The test is not queued and does not change the endpoint health.',
        tags: TAGS,
        params: webhookParamsSchema,
        response: {
          200: webhookTestResultSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...WEBHOOK_ERRORS.endpoint),
        },
      },
    },
    async (request) => webhooks.test(authOf(request).account.id, request.params.id),
  );
}

/** POST /webhooks/{id}/rotate-secret: replaces the signing secret. */
function rotateWebhookSecret(api: ZodApi, webhooks: Webhooks): void {
  api.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        summary: 'Replace the signing secret; queued deliveries are signed with the new one when sent',
        tags: TAGS,
        params: webhookParamsSchema,
        response: {
          200: rotateWebhookSecretResponseSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...WEBHOOK_ERRORS.endpoint),
        },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateSecret(authOf(request).account.id, request.params.id);
      return { data: endpointWithSecretJson(rotated) };
    },
  );
}

/** GET /webhooks/{id}/deliveries: the endpoint's deliveries, newest first. */
function listDeliveries(api: ZodApi, webhooks: Webhooks): void {
  api.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: "The endpoint's deliveries, newest first; status filters pending, delivered or failed",
        tags: TAGS,
        params: webhookParamsSchema,
        querystring: deliveriesQuerySchema,
        response: {
          200: deliveryPageSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...WEBHOOK_ERRORS.endpoint),
        },
      },
    },
    async (request) => {
      const { status, cursor, limit = 50 } = request.query;
      const beforeSeq = cursor === undefined ? undefined : parseSeqCursor('d', cursor);
      const rows = await webhooks.deliveryPage(authOf(request).account.id, request.params.id, {
        status,
        limit,
        beforeSeq,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(deliveryJson),
        meta: { next_cursor: rows.length > limit && last ? seqCursor('d', last.seq) : null },
      };
    },
  );
}

/** POST /webhooks/{id}/deliveries/{deliveryId}/retry: re-arms a delivery. */
function retryDelivery(api: ZodApi, webhooks: Webhooks): void {
  api.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        summary: 'Re-arm a failed delivery with a fresh budget of 12 attempts, the first at once',
        description:
          'A pending delivery is re-armed the same way; a delivered one is 409 already_delivered. A disabled endpoint keeps it queued until it is enabled again.',
        tags: TAGS,
        params: deliveryParamsSchema,
        response: {
          200: deliveryRetryResponseSchema,
          ...errorResponses(...AUTH_ERRORS, 'invalid_param', ...WEBHOOK_ERRORS.retry),
        },
      },
    },
    async (request) => {
      const { id, deliveryId } = request.params;
      return { data: deliveryJson(await webhooks.retry(authOf(request).account.id, id, deliveryId)) };
    },
  );
}
