/**
 * Verifies a webhook request before anything reads its body: the X-Service-Signature header
 * (`t=<unix seconds>,v1=<hex>`, possibly several v1) against the raw body, in constant time, with a
 * tolerance on `t` against the receiver's clock.
 */
import { timingSafeEqual } from 'node:crypto';
import { WEBHOOK_LIMITS, type WebhookEvent } from '../contract/webhook.js';
import { webhookSignature } from '../contract/webhook-signature.js';
import { WebhookVerificationError } from './errors.js';

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Seconds `t` may differ from `now`. @default 300 */
  toleranceSeconds?: number;
  /** The receiver's clock, epoch milliseconds or a Date. @default Date.now() */
  now?: number | Date;
}

/**
 * Checks the signature of a webhook request with the endpoint's secret (the whole `svc_whsec_…`
 * string), then parses the body; throws a {@link WebhookVerificationError} when the header is
 * malformed, `t` is more than the tolerance away from `now`, or no v1 signature matches.
 *
 * @example
 * const event = verifyWebhook(process.env.WEBHOOK_SECRET, req.headers['x-service-signature'], rawBody);
 * if (event.type === 'order.updated') store(event.data);
 */
export function verifyWebhook(
  secret: string,
  signatureHeader: string | string[] | undefined,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const { timestamp, signatures } = parseHeader(signatureHeader);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_LIMITS.signatureToleranceSeconds;
  const now = options.now === undefined ? Date.now() : Number(options.now);
  if (Math.abs(now / 1000 - timestamp) > tolerance)
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `the signature's timestamp ${timestamp} is more than ${tolerance} s from this clock (${Math.floor(now / 1000)}); check the receiver's clock`,
    );
  const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody), 'hex');
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches)
    throw new WebhookVerificationError(
      'signature_mismatch',
      'no v1 signature matches this body and secret; verify the raw body bytes, before any JSON parsing, with the current secret',
    );
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return JSON.parse(text) as WebhookEvent;
}

function parseHeader(header: string | string[] | undefined): { timestamp: number; signatures: string[] } {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const [key, item] = part.trim().split('=', 2);
    if (key === 't' && item !== undefined && /^\d{1,12}$/.test(item)) timestamp = Number(item);
    else if (key === 'v1' && item !== undefined && /^[0-9a-f]{64}$/i.test(item)) signatures.push(item);
  }
  if (timestamp === null || signatures.length === 0)
    throw new WebhookVerificationError(
      'malformed_header',
      'X-Service-Signature must read t=<unix seconds>,v1=<hex signature>',
    );
  return { timestamp, signatures };
}
