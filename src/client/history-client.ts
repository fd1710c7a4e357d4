/**
 * The typed client of the collector's price history (`/v1/history`, see src/collector/README.md):
 * the same transport as {@link MarketClient} (retries honouring Retry-After, a per-key budget, the
 * same error classes), its own base URL and key, every answer parsed with the contract's schemas.
 */
import {
  type Candle,
  type CandlesAnswer,
  candlesAnswerSchema,
  type HistoryItem,
  type HistoryItemsAnswer,
  type HistoryMovers,
  type HistoryStats,
  itemsAnswerSchema,
  moversAnswerSchema,
  statsAnswerSchema,
} from '../contract/history.js';
import { checkObject, checkOptionalObject } from './check-arguments.js';
import type { MarketClientOptions, RequestOptions } from './client-options.js';
import { ClientArgumentError } from './errors.js';
import { pagesOf, rowsOf } from './paginate.js';
import { Transport } from './transport.js';

/** The item group of a history read: a left-out wear matches any, a left-out phase none. */
export interface HistoryGroupParams {
  /** @default 730 */
  appId?: number;
  market_hash_name: string;
  wear?: string;
  phase?: string;
}

/** Query of {@link HistoryClient.candles}. */
export interface CandlesParams extends HistoryGroupParams {
  interval: '1m' | '5m' | '15m' | '1h' | '4h' | '1d';
  /** ISO 8601 UTC. */
  from: string;
  /** ISO 8601 UTC, exclusive. */
  to: string;
  /** @default 'USD' */
  currency?: string;
  cursor?: string | undefined;
}

/** Query of {@link HistoryClient.stats}. */
export interface StatsParams extends HistoryGroupParams {
  window: '24h' | '7d' | '30d' | '90d';
  /** @default 'USD' */
  currency?: string;
}

/** Query of {@link HistoryClient.movers}. */
export interface MoversParams {
  /** @default 730 */
  appId?: number;
  window: '24h' | '7d' | '30d' | '90d';
  /** @default 'change' */
  by?: 'change' | 'liquidity';
  /** 1-100. @default 20 */
  limit?: number;
}

/** Query of {@link HistoryClient.items}. */
export interface HistoryItemsParams {
  /** @default 730 */
  appId?: number;
  /** Part of the name, any case. */
  q?: string;
  cursor?: string | undefined;
}

/**
 * The price history of a collector started with `--history-port`.
 * @example
 * const history = new HistoryClient({ baseUrl: 'http://127.0.0.1:8090/v1/history', apiKey });
 * for await (const candle of history.allCandles({ market_hash_name, interval: '1h', from, to })) …
 * await history.close();
 */
export class HistoryClient {
  private readonly transport: Transport;

  constructor(options: MarketClientOptions) {
    const example = "new HistoryClient({ baseUrl: 'http://127.0.0.1:8090/v1/history', apiKey })";
    checkObject('new HistoryClient', 'options', options, example);
    if (typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl))
      throw new ClientArgumentError(
        `new HistoryClient: baseUrl must be an absolute URL ending in /v1/history; e.g. ${example}`,
      );
    // The endpoint allows 120 reads per key and rolling minute; keep a margin.
    this.transport = new Transport({ ...options, limits: { read: 115, ...options.limits } });
  }

  /** `GET /candles`: one page of buckets (up to 1,000; `next_cursor` leads on). */
  candles(query: CandlesParams, options: RequestOptions = {}): Promise<CandlesAnswer> {
    checkObject('history.candles', 'query', query, "{ market_hash_name, interval: '1h', from, to }");
    return this.transport.get('/candles', query, candlesAnswerSchema, options);
  }

  /** Every page of `GET /candles` from `query.cursor` (or `from`) to `to`. */
  candlePages(query: CandlesParams): AsyncGenerator<CandlesAnswer, void, undefined> {
    checkObject('history.candlePages', 'query', query, "{ market_hash_name, interval: '1h', from, to }");
    return pagesOf(
      (q) => this.candles(q),
      query,
      (page) => page.next_cursor,
    );
  }

  /** Every candle of the range, across pages. */
  allCandles(query: CandlesParams): AsyncGenerator<Candle, void, undefined> {
    return rowsOf(this.candlePages(query), (page) => page.candles);
  }

  /** `GET /items`: one page of the item groups with a history. */
  items(query: HistoryItemsParams = {}, options: RequestOptions = {}): Promise<HistoryItemsAnswer> {
    checkOptionalObject('history.items', 'query', query);
    return this.transport.get('/items', query, itemsAnswerSchema, options);
  }

  /** Every item group matching `query`, across pages. */
  allItems(query: HistoryItemsParams = {}): AsyncGenerator<HistoryItem, void, undefined> {
    checkOptionalObject('history.allItems', 'query', query);
    return rowsOf(
      pagesOf(
        (q) => this.items(q),
        query,
        (page) => page.next_cursor,
      ),
      (page) => page.items,
    );
  }

  /** `GET /stats`: one item group's figures over a window ending now. */
  stats(query: StatsParams, options: RequestOptions = {}): Promise<HistoryStats> {
    checkObject('history.stats', 'query', query, "{ market_hash_name, window: '7d' }");
    return this.transport.get('/stats', query, statsAnswerSchema, options);
  }

  /** `GET /movers`: a game's item groups ranked by change or liquidity. */
  movers(query: MoversParams, options: RequestOptions = {}): Promise<HistoryMovers> {
    checkObject('history.movers', 'query', query, "{ window: '7d', by: 'liquidity' }");
    return this.transport.get('/movers', query, moversAnswerSchema, options);
  }

  /** Closes the connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
