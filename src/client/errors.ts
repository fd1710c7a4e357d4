/** The errors the client throws besides the contract's ApiError: each class with its type guard. */

/** A call of the client made with a missing or mistyped argument: thrown before any request is sent. */
export class ClientArgumentError extends TypeError {
  override readonly name = 'ClientArgumentError';
}

/** True for a {@link ClientArgumentError}. */
export function isClientArgumentError(error: unknown): error is ClientArgumentError {
  return error instanceof ClientArgumentError;
}

/**
 * A transport failure (connection refused or reset, DNS, timeout); the original error is its `cause`.
 * @example if (isNetworkError(error) && error.timedOut) log.warn('the API is slow');
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';

  constructor(
    message: string,
    /** The URL that was requested (it never carries the key). */
    readonly url: string,
    /** True when the client gave up waiting rather than the connection failing. */
    readonly timedOut: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Type guard for {@link NetworkError}. */
export function isNetworkError(value: unknown): value is NetworkError {
  return value instanceof NetworkError;
}

/**
 * A successful answer whose body is not JSON or does not match the contract's schema; terminal,
 * never retried: the server speaks another version of the API. The zod error is its `cause`.
 */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';

  constructor(
    message: string,
    /** The URL that was requested. */
    readonly url: string,
    /** The HTTP status of the answer. */
    readonly status: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Type guard for {@link UnexpectedResponseError}. */
export function isUnexpectedResponseError(value: unknown): value is UnexpectedResponseError {
  return value instanceof UnexpectedResponseError;
}

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
