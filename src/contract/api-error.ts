/** The one error type of the API, thrown by the service and by the client alike. */
import { ERROR_TABLE, type ErrorCode } from './errors.js';

/** Extra body fields of an error (see the error table). */
export type ErrorExtra = Record<string, unknown>;

/**
 * An error with a code from the contract's table.
 * @example throw new ApiError('invalid_param', 'limit must be 1-200');
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: ErrorExtra = {},
    options?: ErrorOptions & { status?: number; headers?: Record<string, string> },
  ) {
    super(`${code}: ${detail}`, options);
    this.status = options?.status ?? ERROR_TABLE[code].status;
    this.headers = options?.headers ?? {};
  }

  /** Response headers the error carries (Retry-After). */
  readonly headers: Record<string, string>;

  /** The JSON body: `{ code, detail, ...extra }`. */
  toBody(): Record<string, unknown> {
    return { code: this.code, detail: this.detail, ...this.extra };
  }
}

/** Type guard for {@link ApiError}. */
export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** True when the string is a code of the table. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_TABLE, value);
}
