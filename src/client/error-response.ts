/** Turns a non-2xx answer into the contract's ApiError, the same typed error the service throws. */
import { ApiError, isErrorCode } from '../contract/api-error.js';
import type { ErrorCode } from '../contract/errors.js';
import { errorBodySchema } from '../contract/errors.js';

/**
 * Builds the ApiError of an error answer: the body's code, detail and extra fields when it is the
 * contract's error body; `market_unavailable` (5xx) or `invalid_request` (other statuses) when it
 * is not (a proxy's HTML page, an unknown code). The status and any Retry-After are kept.
 */
export function errorFromResponse(status: number, text: string, retryAfter: string | undefined): ApiError {
  // Typed, so that the literal's optional key does not become `string | undefined` under strict
  // flags other than ours (users who compile these sources).
  const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
  const options = { status, headers };
  const parsed = errorBodySchema.safeParse(parseJson(text));
  if (!parsed.success) {
    return new ApiError(
      fallbackCode(status),
      `HTTP ${status} without an API error body: ${snippet(text)}`,
      {},
      options,
    );
  }
  const { code, detail, ...extra } = parsed.data;
  if (isErrorCode(code)) return new ApiError(code, detail, extra, options);
  // A code newer than this client: keep it where the caller can see it.
  return new ApiError(fallbackCode(status), detail, { ...extra, unknown_code: code }, options);
}

function fallbackCode(status: number): ErrorCode {
  return status >= 500 ? 'market_unavailable' : 'invalid_request';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return '(empty body)';
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
