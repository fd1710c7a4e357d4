/** Webhooks: endpoints, event envelopes, delivery records, and the bodies and answers of /webhooks. */
import { z } from 'zod';
import { cursorSchema, queryInteger, timestampSchema } from './common.js';
import { orderSchema } from './order.js';

/** Limits and timings of webhook delivery, as the specification states them. */
export const WEBHOOK_LIMITS = {
  /** Endpoints one account may register. */
  maxEndpoints: 5,
  /** Seconds the receiver has to answer. */
  receiverTimeoutSeconds: 10,
  /** Attempts per delivery (and per re-armed budget). */
  maxAttempts: 12,
  /** Consecutive failures after which an endpoint is disabled. */
  disableAfterFailures: 50,
  /** Seconds a signature timestamp may differ from the receiver's clock. */
  signatureToleranceSeconds: 300,
  /** Seconds before each retry: 10s, 30s, 1m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 12h. */
  retryLadderSeconds: [10, 30, 60, 300, 900, 1800, 3600, 7200, 14400, 21600, 43200],
} as const;

/** Headers of a webhook request, lower-cased as Node delivers them. */
export const WEBHOOK_HEADERS = {
  signature: 'x-service-signature',
  eventId: 'x-service-event-id',
  timestamp: 'x-service-delivery-timestamp',
} as const;

/** Every event type a webhook request can carry. */
export const WEBHOOK_EVENT_TYPES = ['order.updated', 'webhook.test'] as const;

/** The type of a webhook event. */
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

/** The type of a webhook event. */
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** Event types an endpoint can subscribe to; webhook.test is sent only by POST /webhooks/{id}/test. */
export const SUBSCRIBABLE_EVENT_TYPES = ['order.updated'] as const;

/** An event type an endpoint can subscribe to; any other value answers 400 invalid_request. */
export const subscribableEventTypeSchema = z.enum(SUBSCRIBABLE_EVENT_TYPES);

/** An event type an endpoint can subscribe to. */
export type SubscribableEventType = z.infer<typeof subscribableEventTypeSchema>;

/** The events an endpoint receives when none are given at registration (designed). */
export const DEFAULT_WEBHOOK_EVENTS: readonly SubscribableEventType[] = ['order.updated'];

/** A registered webhook endpoint with its delivery health; never carries the secret. */
export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string().meta({ description: 'absolute HTTPS URL' }),
    events: z.array(subscribableEventTypeSchema).meta({ description: 'subscribed event types' }),
    enabled: z
      .boolean()
      .meta({ description: `false after ${WEBHOOK_LIMITS.disableAfterFailures} consecutive failures` }),
    description: z.string().meta({ description: 'label; empty when none was given (designed)' }),
    last_success_at: timestampSchema.nullable().meta({ description: 'null before the first success' }),
    last_failure_at: timestampSchema.nullable().meta({ description: 'null before the first failure' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'what went wrong on the last failure; null when none' }),
    consecutive_failures: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'reset to 0 by a success or re-enabling' }),
    created_at: timestampSchema,
  })
  .meta({ id: 'WebhookEndpoint' });

/** A registered webhook endpoint. */
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** A webhook endpoint with its signing secret: only in the create and rotate responses. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().startsWith('svc_whsec_').meta({
      description: 'signing secret, starts with svc_whsec_; returned once, store it now',
    }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

/** A webhook endpoint with its signing secret. */
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

const webhookUrlSchema = z.string().min(1).max(2048).meta({
  description:
    'absolute HTTPS URL without credentials whose host resolves to a public address; the service checks it and answers 400 invalid_webhook_url',
});

const webhookDescriptionSchema = z.string().max(200).meta({ description: 'label, at most 200 characters' });

const webhookEventsSchema = z
  .array(subscribableEventTypeSchema)
  .min(1)
  .refine((events) => new Set(events).size === events.length, { message: 'events must not repeat' })
  .meta({
    description: 'event types to receive; an unknown type answers 400 invalid_request',
    uniqueItems: true,
  });

/**
 * Body of POST /webhooks. Events can be chosen at registration (designed: the specification does
 * not say) and default to order.updated.
 */
export const createWebhookBodySchema = z
  .strictObject({
    url: webhookUrlSchema,
    description: webhookDescriptionSchema.optional(),
    events: webhookEventsSchema
      .default(() => [...DEFAULT_WEBHOOK_EVENTS])
      .meta({ description: 'event types to receive; default [order.updated]' }),
  })
  .meta({ id: 'CreateWebhookBody' });

/** Body of POST /webhooks. */
export type CreateWebhookBody = z.infer<typeof createWebhookBodySchema>;

/** Body of PATCH /webhooks/{id}: any of the fields, at least one; `enabled: true` resets the failure counter. */
export const updateWebhookBodySchema = z
  .strictObject({
    url: webhookUrlSchema.optional(),
    events: webhookEventsSchema.optional(),
    enabled: z.boolean().optional().meta({ description: 're-enabling resets consecutive_failures to 0' }),
    description: webhookDescriptionSchema.optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    message: 'send at least one of url, events, enabled, description',
  })
  .meta({ id: 'UpdateWebhookBody', minProperties: 1 });

/** Body of PATCH /webhooks/{id}. */
export type UpdateWebhookBody = z.infer<typeof updateWebhookBodySchema>;

/** Response of POST /webhooks (designed envelope, like PATCH): the endpoint with its secret, once. */
export const createWebhookResponseSchema = z
  .object({ data: webhookEndpointWithSecretSchema })
  .meta({ id: 'CreateWebhookResponse' });

/** Response of POST /webhooks/{id}/rotate-secret (designed envelope): the endpoint with the new secret. */
export const rotateWebhookSecretResponseSchema = z
  .object({ data: webhookEndpointWithSecretSchema })
  .meta({ id: 'RotateWebhookSecretResponse' });

/** Response of PATCH /webhooks/{id}: `{ data: endpoint }`. */
export const webhookResponseSchema = z
  .object({ data: webhookEndpointSchema })
  .meta({ id: 'WebhookResponse' });

/** Response of GET /webhooks: every endpoint of the account with its health. */
export const webhookListSchema = z
  .object({ data: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookList' });

/** Response of DELETE /webhooks/{id} (designed): which endpoint was removed. */
export const webhookDeletedSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'WebhookDeleted' });

/** Data of a webhook.test event (designed: the specification does not show it). */
export const webhookTestDataSchema = z
  .object({
    webhook_id: z.string().meta({ description: 'the endpoint under test' }),
    message: z.string(),
  })
  .meta({ id: 'WebhookTestData' });

/** An event as POSTed to an endpoint; `id` is stable per (order, state) and is the dedupe key. */
export const webhookEventSchema = z
  .discriminatedUnion('type', [
    z.object({
      id: z.string(),
      type: z.literal('order.updated'),
      created_at: timestampSchema,
      data: orderSchema.meta({ description: 'the Order, byte-identical to what GET /orders/{id} returns' }),
    }),
    z.object({
      id: z.string(),
      type: z.literal('webhook.test'),
      created_at: timestampSchema,
      data: webhookTestDataSchema,
    }),
  ])
  .meta({ id: 'WebhookEvent' });

/** An event as POSTed to an endpoint. */
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** The states of a delivery. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** The status of a delivery: pending (attempts left), delivered (2xx seen), failed (budget spent). */
export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);

/** The status of a delivery. */
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/** One event's delivery to one endpoint (fields designed: the specification names only what it conveys). */
export const webhookDeliverySchema = z
  .object({
    delivery_id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: webhookEventTypeSchema,
    status: deliveryStatusSchema,
    attempts: z
      .number()
      .int()
      .min(0)
      .meta({
        description: `attempts made in the current budget of ${WEBHOOK_LIMITS.maxAttempts}; a retry starts a fresh budget at 0`,
      }),
    next_attempt_at: timestampSchema
      .nullable()
      .meta({ description: 'when the next attempt is due; null unless pending' }),
    last_attempt_at: timestampSchema.nullable(),
    response_status: z.number().int().nullable().meta({
      description: 'HTTP status the receiver answered on the last attempt; null when none was received',
    }),
    response_body: z
      .string()
      .nullable()
      .meta({ description: 'excerpt of the receiver answer, first 1024 characters' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'why the last attempt failed; null when it succeeded' }),
    payload: webhookEventSchema.meta({ description: 'the event sent, exactly as signed' }),
    created_at: timestampSchema,
    delivered_at: timestampSchema.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

/** One event's delivery to one endpoint. */
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** Query of GET /webhooks/{id}/deliveries (designed beyond the status filter): newest first. */
export const deliveriesQuerySchema = z.object({
  status: deliveryStatusSchema.optional(),
  limit: queryInteger(1, 100).optional().meta({ description: '1-100, default 50' }),
  cursor: cursorSchema.optional(),
});

/** Query of GET /webhooks/{id}/deliveries. */
export type DeliveriesQuery = z.infer<typeof deliveriesQuerySchema>;

/** One page of GET /webhooks/{id}/deliveries (designed: the shape of /transactions). */
export const deliveryPageSchema = z
  .object({
    data: z.array(webhookDeliverySchema),
    meta: z.object({ next_cursor: z.string().nullable().meta({ description: 'null on the last page' }) }),
  })
  .meta({ id: 'WebhookDeliveryPage' });

/** One page of deliveries. */
export type DeliveryPage = z.infer<typeof deliveryPageSchema>;

/** Response of POST /webhooks/{id}/deliveries/{deliveryId}/retry (designed): the re-armed delivery. */
export const deliveryRetryResponseSchema = z
  .object({ data: webhookDeliverySchema })
  .meta({ id: 'WebhookDeliveryRetryResponse' });

/** Response of POST /webhooks/{id}/test (designed): what the receiver did with a synchronous webhook.test event. */
export const webhookTestResultSchema = z
  .object({
    delivered: z.boolean().meta({ description: 'true when the receiver answered 2xx within 10 seconds' }),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'the real HTTP status; null when none came back' }),
    error: z.string().nullable().meta({
      description:
        'error text seen from the receiver: its status with the text it answered (first 1024 characters), or why no answer came; null on success',
    }),
    response_body: z.string().nullable().meta({
      description: 'the text the receiver answered, first 1024 characters; null when none came back',
    }),
    duration_ms: z.number().int().min(0),
    event_id: z.string().meta({ description: 'id of the webhook.test event sent' }),
  })
  .meta({ id: 'WebhookTestResult' });

/** Response of POST /webhooks/{id}/test. */
export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/** Path parameters of /webhooks/{id}/…. */
export const webhookParamsSchema = z.object({ id: z.string().min(1).max(128) });

/** Path parameters of /webhooks/{id}/deliveries/{deliveryId}/retry. */
export const deliveryParamsSchema = webhookParamsSchema.extend({ deliveryId: z.string().min(1).max(128) });
