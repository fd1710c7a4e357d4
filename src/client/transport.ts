/**
 * The HTTP layer every resource of the client shares: one connection pool, the key, the per-key
 * budget, the retry loop of the retry policy, and zod parsing of every answer.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher, fetch, Headers, type RequestInit, type Response } from 'undici';
import { z } from 'zod';
import { isApiError } from '../contract/api-error.js';
import { untilAborted } from './abortable.js';
import {
  type ClientClock,
  DEFAULT_BUDGET,
  type MarketClientOptions,
  type RequestOptions,
  type Sleep,
} from './client-options.js';
import { UnexpectedResponseError } from './errors.js';
import {
  type AttemptOptions,
  getStream,
  type HttpMethod,
  headerOf,
  type StreamedAnswer,
  sendJson,
} from './http-attempt.js';
import { claimBudget, type KeyBudget } from './key-budget.js';
import { toQueryString } from './query-params.js';
import { decideRetry, retryAfterMs } from './retry-policy.js';

/** Which window of the key's budget a request counts in; `none` for /health and for POSTs. */
export type RateClass = 'read' | 'snapshot' | 'none';

/** A fetch that sends the key: give it to the `eventsource` package for `/listings/stream`. */
export type StreamFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** One JSON request of a resource. */
export interface JsonRequest<S extends z.ZodType> extends RequestOptions {
  /** @default 'GET' */
  method?: HttpMethod;
  /** Path under the base URL with its query string, e.g. `/orders?limit=10`. */
  path: string;
  /** The contract schema the 2xx answer must match. */
  schema: S;
  /** @default 'read' for a GET, 'none' for a write */
  rate?: RateClass;
  /** JSON body of a POST or PATCH. */
  body?: unknown;
  /**
   * Sent as the Idempotency-Key header, unchanged on every attempt; without it a POST is never
   * retried (nor is a PATCH or DELETE, with or without it).
   */
  idempotencyKey?: string;
  /**
   * The key travels in the body instead (Instant Sell's external_id): no header is sent, and the
   * POST is retried as one that carries `idempotencyKey`. @default false
   */
  keyInBody?: boolean;
  /**
   * The server answers a repeated key with the original outcome (P2P publishing, Instant Sell
   * orders): an unknown outcome (a timeout, 500, 504) is settled by sending again with the same
   * key rather than by `lookUp`, and a 409 (a request with the key still running) is thrown.
   * @default false
   */
  replaysByKey?: boolean;
  /**
   * Looks up the outcome of a POST whose answer was lost (see `decideRetry`): the result when the
   * request took effect, null when it did not and may be sent again with the same key. Without
   * it, or when the lookup itself fails, the original failure is thrown.
   */
  lookUp?: () => Promise<z.output<S> | null>;
}

/** A parsed answer, and whether the server said it replays an earlier request with the same key. */
export interface KeyedAnswer<T> {
  data: T;
  /** True on `Idempotent-Replay: true`, or when a lookup found the outcome of an earlier attempt. */
  replayed: boolean;
}

/**
 * The shared transport of a {@link MarketClient} and its resources; created and closed by the client.
 * @example const order = await transport.json({ method: 'POST', path: '/orders', body, idempotencyKey, schema: orderSchema });
 */
export class Transport {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly clock: ClientClock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly budget: KeyBudget;
  private readonly releaseBudget: () => void;
  private closed = false;
  private readonly onRetry: ((error: unknown) => void) | undefined;

  constructor(options: MarketClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 5;
    this.clock = options.clock ?? { now: Date.now };
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
    this.onRetry = options.onRetry;
    const claim = claimBudget(
      this.baseUrl,
      this.apiKey ?? '',
      { ...DEFAULT_BUDGET, ...options.limits },
      this.clock,
      this.sleep,
    );
    this.budget = claim.budget;
    this.releaseBudget = claim.release;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connect: { timeout: this.timeoutMs } });
  }

  /** Sends a JSON request with the retry policy and parses its answer with `request.schema`. */
  async json<S extends z.ZodType>(request: JsonRequest<S>): Promise<z.output<S>> {
    return (await this.keyed(request)).data;
  }

  /** Like {@link json}, also telling whether the answer replays an earlier request with the same key. */
  keyed<S extends z.ZodType>(request: JsonRequest<S>): Promise<KeyedAnswer<z.output<S>>> {
    const method = request.method ?? 'GET';
    const rate = request.rate ?? (method === 'GET' ? 'read' : 'none');
    const url = `${this.baseUrl}${request.path}`;
    const { idempotencyKey, signal, lookUp } = request;
    const extra: Record<string, string> =
      idempotencyKey === undefined || request.keyInBody === true ? {} : { 'idempotency-key': idempotencyKey };
    const attempt: AttemptOptions = {
      ...this.attemptOptions('application/json', extra, signal),
      method,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    };
    const what = `${method} ${request.path}`;
    const sendOnce = () => sendJson(url, attempt);
    const send = async () => {
      const answer = await (rate === 'read' ? this.budget.read(sendOnce, signal) : sendOnce());
      const data = this.parse(request.schema, answer.body, what, url);
      return { data, replayed: headerOf(answer.headers, 'idempotent-replay') === 'true' };
    };
    const call = { rate, method, idempotencyKey, signal, replaysByKey: request.replaysByKey === true };
    return this.withRetries(
      call,
      send,
      lookUp &&
        (async () => {
          const found = await lookUp();
          return found === null ? null : { data: found, replayed: true };
        }),
    );
  }

  /**
   * GETs `path` with `query` as its query string (see {@link json}).
   * @example const page = await transport.get('/p2p/listings', { limit: 100 }, p2pListingPageSchema);
   */
  get<S extends z.ZodType>(
    path: string,
    query: object,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.output<S>> {
    return this.json({ path: `${path}${toQueryString(query)}`, schema, signal: options.signal });
  }

  /**
   * GETs a download held to the key's snapshot budget, with its body unread (also a 304 answer);
   * a conditional one (with `if-none-match`) goes at once, since a 304 costs nothing.
   */
  download(
    path: string,
    accept: string,
    headers: Record<string, string>,
    options: RequestOptions = {},
  ): Promise<StreamedAnswer> {
    const url = `${this.baseUrl}${path}`;
    const { signal } = options;
    const attempt = this.attemptOptions(accept, headers, signal);
    const conditional = headers['if-none-match'] !== undefined;
    const call = {
      rate: 'snapshot',
      method: 'GET',
      idempotencyKey: undefined,
      signal,
      replaysByKey: false,
    } as const;
    return this.withRetries(call, () =>
      this.budget.snapshot(conditional, () => getStream(url, attempt), signal),
    );
  }

  /**
   * A fetch that adds the key, over this transport's connections; it is not queued or retried
   * (the stream is not rate-limited, and `eventsource` reconnects by itself).
   */
  streamFetch(): StreamFetch {
    const { apiKey, dispatcher } = this;
    return (url, init = {}) => {
      const headers = new Headers(init.headers);
      if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`);
      return fetch(url, { ...init, headers, dispatcher });
    };
  }

  /** Gives back the key's budget and closes the connections this transport opened. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releaseBudget();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private parse<S extends z.ZodType>(schema: S, json: unknown, what: string, url: string): z.output<S> {
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    throw new UnexpectedResponseError(
      `the answer of ${what} does not match the contract: ${z.prettifyError(parsed.error)}`,
      url,
      200,
      { cause: parsed.error },
    );
  }

  /**
   * Runs attempts until one succeeds or the retry policy says stop. A POST whose outcome is
   * unknown is looked up first (unless the server replays its key); what the lookup finds is the
   * answer, and only when it finds nothing is the request sent again, with the same key. An abort of `call.signal`
   * ends it at once, whatever it waits for.
   */
  private async withRetries<T>(
    call: RetriedCall,
    send: () => Promise<T>,
    lookUp?: () => Promise<T | null>,
  ): Promise<T> {
    const { rate, method, idempotencyKey, signal } = call;
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const now = this.clock.now();
        this.pauseOnRateLimit(error, rate, now);
        const decision = decideRetry(error, {
          method,
          idempotencyKey,
          attempt,
          maxRetries: this.maxRetries,
          now,
          random: this.random,
        });
        if (decision === null) throw error;
        if (decision.lookUp && call.replaysByKey) {
          // Sending the same key again answers the original outcome; a 409 is the caller's to decide.
          if (isApiError(error) && error.status === 409) throw error;
        } else if (decision.lookUp) {
          const found = lookUp === undefined ? null : await lookUp().catch(() => undefined);
          // Without an answer from the lookup the outcome stays unknown: the caller gets the original error.
          if (lookUp === undefined || found === undefined) throw error;
          if (found !== null) return found;
        }
        if (decision.delayMs === null) throw error;
        this.onRetry?.(error);
        await untilAborted(this.sleep(decision.delayMs, signal), signal);
      }
    }
  }

  /** After a 429, every client of the key holds its requests of that class until Retry-After. */
  private pauseOnRateLimit(error: unknown, rate: RateClass, now: number): void {
    if (!isApiError(error) || error.status !== 429 || rate === 'none') return;
    const wait = retryAfterMs(error.headers['retry-after'], now);
    if (wait === null) return;
    (rate === 'read' ? this.budget.reads : this.budget.snapshots).pause(now + wait);
  }

  private attemptOptions(
    accept: string,
    extra: Record<string, string>,
    signal: AbortSignal | undefined,
  ): AttemptOptions {
    const headers: Record<string, string> = { accept, ...extra };
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    return { dispatcher: this.dispatcher, headers, timeoutMs: this.timeoutMs, ...(signal ? { signal } : {}) };
  }
}

/** What the retry loop needs to know of a call. */
interface RetriedCall {
  rate: RateClass;
  method: string;
  idempotencyKey: string | undefined;
  signal: AbortSignal | undefined;
  /** An unknown outcome is settled by resending with the same key (see {@link JsonRequest.replaysByKey}). */
  replaysByKey: boolean;
}
