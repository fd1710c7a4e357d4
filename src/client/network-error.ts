/** The error a request throws when it never got an HTTP answer: refused, reset, or timed out. */

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
