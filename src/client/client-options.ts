/** Options of a MarketClient and of the per-key request budget, with their defaults. */
import type { Dispatcher } from 'undici';

/** Tells the time in epoch milliseconds; tests pass a fake one. */
export interface ClientClock {
  now(): number;
}

/**
 * Waits `ms` milliseconds, or rejects when `signal` aborts; tests pass one that returns at once (or
 * moves a fake clock). One that ignores `signal` is still given up on when it aborts.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of one call of the client. */
export interface RequestOptions {
  /**
   * Gives the call up: a request in flight, one queued on the key's budget, a wait for room in
   * the budget's window, for a Retry-After or between retries all end at once, rejecting with the
   * signal's reason.
   */
  signal?: AbortSignal | undefined;
}

/**
 * The request budget of one API key, shared by every client of that key in the process. The
 * server allows 100 reads and 1 snapshot download per rolling minute; the defaults keep a margin.
 */
export interface BudgetOptions {
  /** Standard reads per rolling window. @default 95 */
  read?: number;
  /** Snapshot downloads (200 answers) per rolling window. @default 1 */
  snapshot?: number;
  /** Length of the rolling window in milliseconds. @default 60000 */
  windowMs?: number;
  /** Reads in flight at once on the key. @default 8 */
  concurrency?: number;
}

/** The budget with every default applied. */
export type BudgetLimits = Required<BudgetOptions>;

/** Default budget: a small safety margin under the published 100 reads per minute. */
export const DEFAULT_BUDGET: BudgetLimits = { read: 95, snapshot: 1, windowMs: 60_000, concurrency: 8 };

/**
 * Options of a {@link MarketClient}.
 * @example new MarketClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: process.env.MARKET_API_KEY })
 */
export interface MarketClientOptions {
  /** Base URL of the API, ending in the version segment, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /** API key (starts with `svc_pub_`), sent as `Authorization: Bearer <key>`; only /health works without. */
  apiKey?: string | undefined;
  /** Longest wait for one attempt's answer, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /**
   * Retries of a transient failure (429, 502/503/504, price_updating, network) per request; a POST
   * is retried only with its Idempotency-Key, and lookups of an unknown outcome are not counted. @default 5
   */
  maxRetries?: number;
  /** The key's request budget; the first client of a key fixes it for the process. @default DEFAULT_BUDGET */
  limits?: BudgetOptions;
  /** undici dispatcher the requests go through. @default a keep-alive Agent owned (and closed) by the client */
  dispatcher?: Dispatcher;
  /** Clock of the budget and of Retry-After dates. @default Date.now */
  clock?: ClientClock;
  /** How the client waits between retries and for budget; a fake one must move `clock` by `ms`. @default a timer that the call's signal clears */
  sleep?: Sleep;
  /** Source of the backoff jitter, uniform in [0, 1). @default Math.random */
  random?: () => number;
  /** Hears of each transient failure about to be retried (after its wait), e.g. to count retries. */
  onRetry?: (error: unknown) => void;
}
