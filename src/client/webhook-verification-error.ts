/** The error `verifyWebhook` throws for a request that must not be trusted. */

/** Why a webhook request was refused. */
export type WebhookVerificationReason =
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

/** A webhook request whose signature does not hold; answer it 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Type guard for {@link WebhookVerificationError}. */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return value instanceof WebhookVerificationError;
}
