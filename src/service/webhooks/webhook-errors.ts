/** What the webhooks feature refuses, as domain errors named by their API code, and how they become API errors. */
import { ApiError } from '../../contract/api-error.js';
import type { ErrorCode } from '../../contract/errors.js';
import { DomainError } from '../core/domain-error.js';

const WEBHOOK_CODES = [
  'not_found',
  'invalid_request',
  'invalid_webhook_url',
  'too_many_webhooks',
  'already_delivered',
] as const satisfies readonly ErrorCode[];

/** An API code the webhooks feature refuses with. */
export type WebhookRefusal = (typeof WEBHOOK_CODES)[number];

const CODES = new Set<string>(WEBHOOK_CODES);

/** A webhooks refusal. */
export function refuse(code: WebhookRefusal, message: string): DomainError<WebhookRefusal> {
  return new DomainError(code, message);
}

/** The API error of a webhooks refusal. */
export function webhookApiError(error: DomainError): ApiError | undefined {
  if (!CODES.has(error.reason)) return undefined;
  return new ApiError(error.reason as WebhookRefusal, error.message);
}
