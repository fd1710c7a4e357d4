/**
 * What one attempt does to its delivery and its endpoint: a 2xx delivers and clears the endpoint's
 * failure count; anything else schedules the next attempt from the ladder on the service clock
 * (10s, 30s, 1m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 12h; 12 attempts), fails the delivery when its budget
 * is spent, and disables the endpoint at 50 consecutive failures (failures recorded after that
 * leave its health as it is).
 */
import { WEBHOOK_LIMITS } from '../../contract/webhook.js';
import type { DeliveryRecord } from './delivery-store.js';
import type { EndpointRecord } from './endpoint-store.js';
import type { SendOutcome } from './sender.js';

/** Seconds from a failed attempt (1-based) to the next one, or null when it was the last of the budget. */
export function retryDelaySeconds(attempt: number): number | null {
  if (attempt >= WEBHOOK_LIMITS.maxAttempts) return null;
  return WEBHOOK_LIMITS.retryLadderSeconds[attempt - 1] ?? null;
}

/** Applies an attempt made at `at` (service clock) to the delivery and, when it still exists, its endpoint. */
export function applyAttempt(
  delivery: DeliveryRecord,
  endpoint: EndpointRecord | undefined,
  outcome: SendOutcome,
  at: number,
): void {
  delivery.attempts += 1;
  delivery.lastAttemptAt = at;
  delivery.responseStatus = outcome.status;
  delivery.responseBody = outcome.body;
  delivery.lastError = outcome.error;
  if (outcome.ok) {
    delivery.status = 'delivered';
    delivery.deliveredAt = at;
    delivery.nextAttemptAt = null;
    if (endpoint) {
      endpoint.lastSuccessAt = at;
      endpoint.consecutiveFailures = 0;
    }
    return;
  }
  const delay = retryDelaySeconds(delivery.attempts);
  delivery.status = delay === null ? 'failed' : 'pending';
  delivery.nextAttemptAt = delay === null ? null : at + delay * 1000;
  // An attempt sent just before the endpoint was disabled does not count past the limit.
  if (!endpoint?.enabled) return;
  endpoint.lastFailureAt = at;
  endpoint.lastError = outcome.error;
  endpoint.consecutiveFailures += 1;
  if (endpoint.consecutiveFailures >= WEBHOOK_LIMITS.disableAfterFailures) endpoint.enabled = false;
}
