/**
 * One HTTP attempt over undici, with a deadline: 2xx answers are handed back, error answers become
 * ApiError, and transport failures (refused, reset, timed out) become NetworkError.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, request } from 'undici';
import type { ApiError } from '../contract/api-error.js';
import { isApiError } from '../contract/api-error.js';
import { errorFromResponse } from './error-response.js';
import { isUnexpectedResponseError, NetworkError, UnexpectedResponseError } from './errors.js';

/** The methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** How an attempt is sent. */
export interface AttemptOptions {
  dispatcher: Dispatcher;
  /** HTTP method. @default 'GET' */
  method?: HttpMethod;
  /** Request headers (authorization, accept, conditionals, Idempotency-Key). */
  headers: Record<string, string>;
  /** JSON body, already serialized; sent with `content-type: application/json`. */
  body?: string;
  /** Deadline of the attempt in milliseconds: until the whole JSON body, or until a stream's headers. */
  timeoutMs: number;
  /**
   * Gives the attempt up: it rejects with the signal's reason (never a NetworkError, so never
   * retried). A streamed body handed back is the caller's to stop (e.g. `pipeline(…, { signal })`).
   */
  signal?: AbortSignal | undefined;
}

/** A 2xx answer read as JSON, with its headers. */
export interface JsonAnswer {
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** An answer whose body is left for the caller to stream. */
export interface StreamedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
}

// Failures of the caller or of a closed client, not of the network: never retried.
const NOT_TRANSPORT = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_ERR_NOT_SUPPORTED',
]);
const TIMEOUTS = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** Sends one request to `url` and reads its 2xx answer as JSON. */
export function sendJson(url: string, options: AttemptOptions): Promise<JsonAnswer> {
  return attempt(url, options, false, async (response) => {
    const text = await response.body.text();
    try {
      return { body: JSON.parse(text) as unknown, headers: response.headers };
    } catch (error) {
      throw new UnexpectedResponseError(`the answer of ${url} is not JSON`, url, response.statusCode, {
        cause: error,
      });
    }
  });
}

/** GETs `url` and hands back a 2xx or 304 answer with its body unread; the deadline stops at the headers. */
export function getStream(url: string, options: AttemptOptions): Promise<StreamedAnswer> {
  return attempt(url, options, true, async (response) => ({
    status: response.statusCode,
    headers: response.headers,
    body: response.body,
  }));
}

/** The first value of a response header. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function attempt<T>(
  url: string,
  options: AttemptOptions,
  allowNotModified: boolean,
  read: (response: Dispatcher.ResponseData) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('deadline')), options.timeoutMs);
  const caller = options.signal;
  // Linked by hand rather than with AbortSignal.any, whose followers a long-lived signal (a
  // daemon's) would keep for as long as it lives.
  const giveUp = () => controller.abort(caller?.reason);
  caller?.addEventListener('abort', giveUp, { once: true });
  try {
    caller?.throwIfAborted();
    const { body } = options;
    const response = await request(url, {
      method: options.method ?? 'GET',
      headers:
        body === undefined ? options.headers : { ...options.headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
      dispatcher: options.dispatcher,
      signal: controller.signal,
      // A streamed body has no deadline, only a limit on silence between chunks.
      bodyTimeout: options.timeoutMs,
    });
    const status = response.statusCode;
    const ok = (status >= 200 && status < 300) || (allowNotModified && status === 304);
    if (!ok) throw await errorOf(response);
    return await read(response);
  } catch (error) {
    if (caller?.aborted) throw caller.reason;
    throw transportError(error, url, controller.signal.aborted, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', giveUp);
  }
}

async function errorOf(response: Dispatcher.ResponseData): Promise<ApiError> {
  const text = await response.body.text();
  return errorFromResponse(response.statusCode, text, headerOf(response.headers, 'retry-after'));
}

function transportError(error: unknown, url: string, aborted: boolean, timeoutMs: number): unknown {
  if (isApiError(error) || isUnexpectedResponseError(error)) return error;
  if (aborted)
    return new NetworkError(`no answer from ${url} within ${timeoutMs} ms`, url, true, { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NOT_TRANSPORT.has(code)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const timedOut = typeof code === 'string' && TIMEOUTS.has(code);
  return new NetworkError(`request to ${url} failed: ${message}`, url, timedOut, { cause: error });
}
