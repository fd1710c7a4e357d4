/** What the webhooks feature refuses, as domain errors named by their API code, and how they become API errors. */
import type { ErrorCode } from '../../contract/errors.js';
import { codedRefusals } from '../core/coded-refusals.js';

const WEBHOOK_CODES = [
  'not_found',
  'invalid_request',
  'invalid_webhook_url',
  'too_many_webhooks',
  'already_delivered',
] as const satisfies readonly ErrorCode[];

/** An API code the webhooks feature refuses with. */
export type WebhookRefusal = (typeof WEBHOOK_CODES)[number];

const refusals = codedRefusals(WEBHOOK_CODES);

/** A webhooks refusal. */
export const refuse = refusals.refuse;

/** The API error of a webhooks refusal. */
export const webhookApiError = refusals.apiError;
