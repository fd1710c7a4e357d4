/** The error a request throws when a 2xx answer does not match the contract (a drifted or foreign server). */

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
