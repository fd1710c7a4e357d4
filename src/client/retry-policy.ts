/**
 * The one place that decides whether a failed request is tried again, and after how long: the
 * specification's retry rules for idempotent reads, with exponential backoff and full jitter.
 */
import { isApiError } from '../contract/api-error.js';
import { isNetworkError } from './network-error.js';

/** First backoff step in milliseconds. @default 500 */
export const BACKOFF_BASE_MS = 500;

/** Longest backoff step in milliseconds. @default 30000 */
export const BACKOFF_CAP_MS = 30_000;

/** What a retry decision needs to know besides the error. */
export interface RetryContext {
  /** HTTP method of the request; only idempotent ones are retried. */
  method: string;
  /** Retries already made for this request (0 after the first attempt). */
  attempt: number;
  /** Retries allowed in all. */
  maxRetries: number;
  /** Epoch milliseconds now, to read a Retry-After given as a date. */
  now: number;
  /** A uniform random number in [0, 1), for the jitter. */
  random: () => number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * True when the error is worth retrying later: 429, 409 price_updating, 502/503/504,
 * market_unavailable (also any 5xx without an API error body), and network errors or timeouts.
 */
export function isTransient(error: unknown): boolean {
  if (isNetworkError(error)) return true;
  if (!isApiError(error)) return false;
  if (error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504)
    return true;
  return error.code === 'price_updating' || error.code === 'market_unavailable';
}

/**
 * Milliseconds to wait before retrying, or null when the request must not be retried: exactly
 * Retry-After for a 429 that carries one, else a full-jitter exponential backoff.
 */
export function retryDelayMs(error: unknown, context: RetryContext): number | null {
  if (!IDEMPOTENT.has(context.method.toUpperCase())) return null;
  if (context.attempt >= context.maxRetries || !isTransient(error)) return null;
  if (isApiError(error) && error.status === 429) {
    const wait = retryAfterMs(error.headers['retry-after'], context.now);
    if (wait !== null) return wait;
  }
  return backoffMs(context.attempt, context.random);
}

/** Full jitter: a uniform wait between 0 and min(cap, base × 2^attempt). */
export function backoffMs(
  attempt: number,
  random: () => number,
  baseMs = BACKOFF_BASE_MS,
  capMs = BACKOFF_CAP_MS,
): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** Reads a Retry-After header (integer seconds or an HTTP date) as milliseconds from `now`. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
