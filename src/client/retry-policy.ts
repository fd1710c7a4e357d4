/**
 * The one place that decides whether a failed request is tried again, and after how long: the
 * specification's retry rules for reads and for POSTs that carry an Idempotency-Key, with
 * exponential backoff and full jitter.
 */
import { isApiError } from '../contract/api-error.js';
import { backoffWaitMs } from '../shared/jobs/backoff.js';
import { isNetworkError } from './errors.js';

/** First backoff step in milliseconds. @default 500 */
export const BACKOFF_BASE_MS = 500;

/** Longest backoff step in milliseconds. @default 30000 */
export const BACKOFF_CAP_MS = 30_000;

/** What a retry decision needs to know besides the error. */
export interface RetryContext {
  /** HTTP method of the request; a POST is retried only when it carries an Idempotency-Key. */
  method: string;
  /** The Idempotency-Key the request carries, sent unchanged on every attempt. */
  idempotencyKey?: string | undefined;
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

/** What to do after a failed attempt. */
export interface RetryDecision {
  /**
   * The outcome of the POST is unknown (a timeout, 504, order_failed, idempotency_in_progress):
   * look it up before anything else, and resend only when it did not happen.
   */
  lookUp: boolean;
  /** Milliseconds to wait before resending (with the same key), or null when no retry is left. */
  delayMs: number | null;
}

/**
 * What a POST with an Idempotency-Key does after a failure: `resend` it with the same key (429,
 * price_updating, market_unavailable, 502, 503, a network error that is not a timeout),
 * `look_up` its outcome first (a timeout, any 500 or 504, order_failed, idempotency_in_progress),
 * or `stop` (400, 401, 402, 403, price_moved, item_unavailable and every other answer).
 */
export function postFailureKind(error: unknown): 'resend' | 'look_up' | 'stop' {
  if (isNetworkError(error)) return error.timedOut ? 'look_up' : 'resend';
  if (!isApiError(error)) return 'stop';
  if (error.status === 500 || error.status === 504) return 'look_up';
  if (error.code === 'order_failed' || error.code === 'idempotency_in_progress') return 'look_up';
  return isTransient(error) ? 'resend' : 'stop';
}

/**
 * Decides the next step after a failed attempt, or null when the error is final: a GET retries
 * transient failures, a POST only when it carries an Idempotency-Key (see {@link postFailureKind}),
 * never one without.
 */
export function decideRetry(error: unknown, context: RetryContext): RetryDecision | null {
  const method = context.method.toUpperCase();
  let lookUp = false;
  if (method === 'POST' && context.idempotencyKey !== undefined) {
    const kind = postFailureKind(error);
    if (kind === 'stop') return null;
    lookUp = kind === 'look_up';
  } else if (!IDEMPOTENT.has(method) || !isTransient(error)) {
    return null;
  }
  if (context.attempt >= context.maxRetries) return lookUp ? { lookUp, delayMs: null } : null;
  return { lookUp, delayMs: waitMs(error, context) };
}

/**
 * Milliseconds to wait before retrying, or null when the request must not be retried blindly
 * (also when its outcome must be looked up first): exactly Retry-After for a 429 that carries one,
 * else a full-jitter exponential backoff.
 */
export function retryDelayMs(error: unknown, context: RetryContext): number | null {
  const decision = decideRetry(error, context);
  return decision === null || decision.lookUp ? null : decision.delayMs;
}

function waitMs(error: unknown, context: RetryContext): number {
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
  return backoffWaitMs(attempt, { baseMs, capMs, random });
}

/** Reads a Retry-After header (integer seconds or an HTTP date) as milliseconds from `now`. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
