/** The typed client of the marketplace API /v1: every answer parsed with the contract, retries and a per-key budget built in. */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher, fetch, Headers, type RequestInit, type Response } from 'undici';
import { z } from 'zod';
import { type Balance, balanceSchema, type Transaction, transactionPageSchema } from '../contract/account.js';
import { isApiError } from '../contract/api-error.js';
import { type Listing, listingPageSchema } from '../contract/listing.js';
import {
  type CurrencyResponse,
  currencyResponseSchema,
  type Game,
  gamesResponseSchema,
  type Health,
  healthSchema,
  type PriceList,
  type PriceRow,
  priceListSchema,
} from '../contract/market.js';
import { type ClientClock, DEFAULT_BUDGET, type MarketClientOptions, type Sleep } from './client-options.js';
import { claimBudget, type KeyBudget } from './key-budget.js';
import { paginate } from './paginate.js';
import {
  type ListingsParams,
  type PricesParams,
  type TransactionsParams,
  toQueryString,
} from './query-params.js';
import { retryAfterMs, retryDelayMs } from './retry-policy.js';
import { type AttemptOptions, getJson, getStream, headerOf, type StreamedAnswer } from './transport.js';
import { UnexpectedResponseError } from './unexpected-response-error.js';

/** One page of `GET /listings`. */
export type ListingPage = z.infer<typeof listingPageSchema>;

/** One page of `GET /transactions`. */
export type TransactionPage = z.infer<typeof transactionPageSchema>;

/** The snapshot has not changed since the ETag sent. */
export interface SnapshotNotModified {
  status: 304;
  etag: string;
}

/**
 * A new snapshot: `body` is the raw gzip NDJSON bytes (not decompressed), a Node Readable to be
 * streamed to a file; consume it (or discard it with `body.dump()`), since it holds a connection.
 */
export interface SnapshotDownload {
  status: 200;
  etag: string | null;
  /** When the server built the snapshot (X-Generated-At), or null when not sent. */
  generatedAt: string | null;
  body: StreamedAnswer['body'];
}

/** The answer of {@link MarketClient.snapshot}. */
export type SnapshotResult = SnapshotNotModified | SnapshotDownload;

/** A fetch that sends the key: give it to the `eventsource` package for `/listings/stream`. */
export type StreamFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

type RateClass = 'read' | 'snapshot' | 'none';

/**
 * The typed client of the marketplace API.
 * @example
 * const client = new MarketClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey });
 * for await (const listing of client.iterateListings({ limit: 200 })) console.log(listing.id);
 * await client.close();
 */
export class MarketClient {
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

  constructor(options: MarketClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 5;
    this.clock = options.clock ?? { now: Date.now };
    this.sleep = options.sleep ?? ((ms) => delay(ms));
    this.random = options.random ?? Math.random;
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

  /** `GET /health` (no key, outside the budget): status, price groups and price-list age. */
  health(): Promise<Health> {
    return this.read('/health', '', healthSchema, 'none');
  }

  /** `GET /games`: the games this key may read, CS2 first. */
  async games(): Promise<Game[]> {
    return (await this.read('/games', '', gamesResponseSchema, 'read')).games;
  }

  /** `GET /listings`: one keyset page of live listings. */
  listings(query: ListingsParams = {}): Promise<ListingPage> {
    return this.read('/listings', toQueryString(query), listingPageSchema, 'read');
  }

  /** Every page of `GET /listings` from `query.cursor` (or the start) to the last. */
  iterateListingPages(query: ListingsParams = {}): AsyncGenerator<ListingPage, void, undefined> {
    return paginate(
      (cursor) => this.listings({ ...query, cursor }),
      (page) => page.next_cursor,
      query.cursor,
    );
  }

  /** Every listing matching `query`, across all keyset pages. */
  async *iterateListings(query: ListingsParams = {}): AsyncGenerator<Listing, void, undefined> {
    for await (const page of this.iterateListingPages(query)) yield* page.items;
  }

  /** `GET /prices`: one page of the minAsk price list (402 insufficient_settled_balance before funding). */
  prices(query: PricesParams = {}): Promise<PriceList> {
    return this.read('/prices', toQueryString(query), priceListSchema, 'read');
  }

  /** Every page of `GET /prices` from `query.cursor` (or the start) to the last. */
  iteratePricePages(query: PricesParams = {}): AsyncGenerator<PriceList, void, undefined> {
    return paginate(
      (cursor) => this.prices({ ...query, cursor }),
      (page) => page.next_cursor,
      query.cursor,
    );
  }

  /** Every price row matching `query`, across all pages. */
  async *iteratePrices(query: PricesParams = {}): AsyncGenerator<PriceRow, void, undefined> {
    for await (const page of this.iteratePricePages(query)) yield* page.items;
  }

  /** `GET /currency`: units of each currency per 1 USD. */
  currency(): Promise<CurrencyResponse> {
    return this.read('/currency', '', currencyResponseSchema, 'read');
  }

  /** `GET /balance`: balance, settled funds and trading status. */
  balance(): Promise<Balance> {
    return this.read('/balance', '', balanceSchema, 'read');
  }

  /** `GET /transactions`: one page of the balance ledger, newest first. */
  transactions(query: TransactionsParams = {}): Promise<TransactionPage> {
    return this.read('/transactions', toQueryString(query), transactionPageSchema, 'read');
  }

  /** Every ledger row matching `query`, newest first, across all pages. */
  async *iterateTransactions(query: TransactionsParams = {}): AsyncGenerator<Transaction, void, undefined> {
    const pages = paginate(
      (cursor) => this.transactions({ ...query, cursor }),
      (page) => page.meta.next_cursor,
      query.cursor,
    );
    for await (const page of pages) yield* page.data;
  }

  /**
   * `GET /prices/snapshot.ndjson.gz`: 304 when `etag` is still current (free), else the raw gzip
   * bytes with the new ETag. Downloads are held to the key's snapshot budget.
   * @example const result = await client.snapshot({ etag }); if (result.status === 200) await pipeline(result.body, createWriteStream(file));
   */
  async snapshot(options: { etag?: string | undefined } = {}): Promise<SnapshotResult> {
    const { etag } = options;
    const url = `${this.baseUrl}/prices/snapshot.ndjson.gz`;
    const attempt = this.attemptOptions(
      'application/gzip',
      etag === undefined ? {} : { 'if-none-match': etag },
    );
    const answer = await this.withRetries('snapshot', () =>
      this.budget.snapshot(etag !== undefined, () => getStream(url, attempt)),
    );
    if (answer.status === 304) {
      await answer.body.dump();
      return { status: 304, etag: headerOf(answer.headers, 'etag') ?? etag ?? '' };
    }
    return {
      status: 200,
      etag: headerOf(answer.headers, 'etag') ?? null,
      generatedAt: headerOf(answer.headers, 'x-generated-at') ?? null,
      body: answer.body,
    };
  }

  /**
   * A fetch for `/listings/stream` that adds the key, over this client's connections; it is not
   * queued or retried (the stream is not rate-limited, and `eventsource` reconnects by itself).
   * @example new EventSource(`${client.baseUrl}/listings/stream`, { fetch: client.streamFetch() })
   */
  streamFetch(): StreamFetch {
    const { apiKey, dispatcher } = this;
    return (url, init = {}) => {
      const headers = new Headers(init.headers);
      if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`);
      return fetch(url, { ...init, headers, dispatcher });
    };
  }

  /** Gives back the key's budget and closes the connections this client opened. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releaseBudget();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async read<S extends z.ZodType>(
    path: string,
    query: string,
    schema: S,
    rate: RateClass,
  ): Promise<z.output<S>> {
    const url = `${this.baseUrl}${path}${query}`;
    const attempt = this.attemptOptions('application/json', {});
    const json = await this.withRetries(rate, () =>
      rate === 'read' ? this.budget.read(() => getJson(url, attempt)) : getJson(url, attempt),
    );
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    throw new UnexpectedResponseError(
      `the answer of GET ${path} does not match the contract: ${z.prettifyError(parsed.error)}`,
      url,
      200,
      { cause: parsed.error },
    );
  }

  /** Runs attempts of an idempotent GET until one succeeds or the retry policy says stop. */
  private async withRetries<T>(rate: RateClass, send: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const now = this.clock.now();
        this.pauseOnRateLimit(error, rate, now);
        const wait = retryDelayMs(error, {
          method: 'GET',
          attempt,
          maxRetries: this.maxRetries,
          now,
          random: this.random,
        });
        if (wait === null) throw error;
        await this.sleep(wait);
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

  private attemptOptions(accept: string, extra: Record<string, string>): AttemptOptions {
    const headers: Record<string, string> = { accept, ...extra };
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    return { dispatcher: this.dispatcher, headers, timeoutMs: this.timeoutMs };
  }
}
