/** Endpoints, deliveries and event envelopes as the API writes them (keys in the contract's order). */
import { createHash } from 'node:crypto';
import type {
  SubscribableEventType,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEvent,
} from '../../contract/webhook.js';
import type { DeliveryRecord, QueuedEvent } from './delivery-store.js';
import type { EndpointRecord } from './endpoint-store.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** The endpoint without its secret. */
export function endpointJson(e: EndpointRecord): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    events: e.events as SubscribableEventType[],
    enabled: e.enabled,
    description: e.description,
    last_success_at: isoOrNull(e.lastSuccessAt),
    last_failure_at: isoOrNull(e.lastFailureAt),
    last_error: e.lastError,
    consecutive_failures: e.consecutiveFailures,
    created_at: iso(e.createdAt),
  };
}

/** The endpoint with its secret: only the create and rotate responses. */
export function endpointWithSecretJson(e: EndpointRecord): WebhookEndpointWithSecret {
  return { ...endpointJson(e), secret: e.secret };
}

/** The delivery with the event it sends. */
export function deliveryJson(d: DeliveryRecord): WebhookDelivery {
  return {
    delivery_id: d.id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: isoOrNull(d.nextAttemptAt),
    last_attempt_at: isoOrNull(d.lastAttemptAt),
    response_status: d.responseStatus,
    response_body: d.responseBody,
    last_error: d.lastError,
    payload: JSON.parse(d.payload) as WebhookEvent,
    created_at: iso(d.createdAt),
    delivered_at: isoOrNull(d.deliveredAt),
  };
}

/**
 * The order.updated event of an order written at `at`: `data` is the order's JSON byte for byte,
 * and the id is a hash of it, so the same state always gives the same id.
 */
export function orderUpdatedEvent(orderJson: string, at: number): QueuedEvent {
  const id = `evt_${createHash('sha256').update(orderJson).digest('hex').slice(0, 32)}`;
  return {
    id,
    type: 'order.updated',
    payload: `{"id":${JSON.stringify(id)},"type":"order.updated","created_at":"${iso(at)}","data":${orderJson}}`,
  };
}
