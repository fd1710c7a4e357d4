/**
 * The webhook signature both halves compute: HMAC-SHA256, keyed with the UTF-8 bytes of the whole
 * secret (prefix included), over `t`, a dot and the raw body; sent as `t=<unix seconds>,v1=<hex>`.
 */
import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 of `${timestamp}.${rawBody}` keyed with the secret as shown to the user. */
export function webhookSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(rawBody)
    .digest('hex');
}

/**
 * The X-Service-Signature value for a body sent at `timestamp` (unix seconds).
 * @example webhookSignatureHeader('svc_whsec_…', 1767225600, body) // 't=1767225600,v1=5f0c…'
 */
export function webhookSignatureHeader(
  secret: string,
  timestamp: number,
  rawBody: string | Uint8Array,
): string {
  return `t=${timestamp},v1=${webhookSignature(secret, timestamp, rawBody)}`;
}
