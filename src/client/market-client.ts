/**
 * The typed client of the marketplace API /v1: one resource per API area over a shared transport
 * (every answer parsed with the contract, retries and a per-key budget built in), behind flat methods.
 */
import type { Balance, Transaction } from '../contract/account.js';
import type { Listing } from '../contract/listing.js';
import type { CurrencyResponse, Game, Health, PriceList, PriceRow } from '../contract/market.js';
import type { CreateOrderBody, MarketBuyBody, Order, OrderPage } from '../contract/order.js';
import type { P2PListingPage } from '../contract/p2p.js';
import type { SellOrderPage } from '../contract/sell.js';
import { checkObject } from './check-arguments.js';
import { ClientArgumentError } from './client-argument-error.js';
import type { MarketClientOptions, RequestOptions } from './client-options.js';
import type {
  ListingsParams,
  OrdersParams,
  P2PListingsParams,
  PricesParams,
  SellOrdersParams,
  TransactionsParams,
} from './query-params.js';
import { AccountResource, type TransactionPage } from './resources/account.js';
import { InstantSellResource } from './resources/instant-sell.js';
import { type ListingPage, ListingsResource } from './resources/listings.js';
import { MarketInfoResource } from './resources/market-info.js';
import { OrdersResource, type PlaceOrderOptions } from './resources/orders.js';
import { P2PResource } from './resources/p2p.js';
import { PricesResource, type SnapshotResult } from './resources/prices.js';
import { WebhooksResource } from './resources/webhooks.js';
import { type StreamFetch, Transport } from './transport.js';

/** Refuses options without a usable base URL, or with a key that is not a string. */
function checkClientOptions(options: MarketClientOptions): void {
  const example =
    "new MarketClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: process.env.MARKET_API_KEY })";
  checkObject('new MarketClient', 'options', options, example);
  if (typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl))
    throw new ClientArgumentError(
      `new MarketClient: baseUrl must be an absolute URL ending in /v1; e.g. ${example}`,
    );
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string')
    throw new ClientArgumentError('new MarketClient: apiKey must be a string (svc_pub_…) or left out');
}

/**
 * The typed client of the marketplace API. The calls a collector repeats take a signal
 * ({@link RequestOptions}) that gives them up at once, wherever they wait.
 * @example
 * const client = new MarketClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey });
 * for await (const listing of client.iterateListings({ limit: 200 })) console.log(listing.id);
 * await client.close();
 */
export class MarketClient {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** P2P selling: inventory, idempotent publishing (one or a batch), repricing, unlisting, listings. */
  readonly p2p: P2PResource;
  /** Instant Sell (invite-only): status, quotes, sell orders idempotent by external_id. */
  readonly instantSell: InstantSellResource;
  /** Webhook endpoints, their secret, tests and deliveries. */
  readonly webhooks: WebhooksResource;
  private readonly transport: Transport;
  private readonly info: MarketInfoResource;
  private readonly listingsArea: ListingsResource;
  private readonly pricesArea: PricesResource;
  private readonly account: AccountResource;
  private readonly orders: OrdersResource;

  constructor(options: MarketClientOptions) {
    checkClientOptions(options);
    this.transport = new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.info = new MarketInfoResource(this.transport);
    this.listingsArea = new ListingsResource(this.transport);
    this.pricesArea = new PricesResource(this.transport);
    this.account = new AccountResource(this.transport);
    this.orders = new OrdersResource(this.transport);
    this.p2p = new P2PResource(this.transport);
    this.instantSell = new InstantSellResource(this.transport);
    this.webhooks = new WebhooksResource(this.transport);
  }

  /** `GET /health` (no key, outside the budget): status, price groups and price-list age. */
  health(): Promise<Health> {
    return this.info.health();
  }

  /** `GET /games`: the games this key may read, CS2 first. */
  games(): Promise<Game[]> {
    return this.info.games();
  }

  /** `GET /currency`: units of each currency per 1 USD. */
  currency(options: RequestOptions = {}): Promise<CurrencyResponse> {
    return this.info.currency(options);
  }

  /**
   * `GET /listings`: one keyset page of live listings.
   * @example const page = await client.listings({ sort: 'newest', limit: 200 }, { signal });
   */
  listings(query: ListingsParams = {}, options: RequestOptions = {}): Promise<ListingPage> {
    return this.listingsArea.list(query, options);
  }

  /** Every page of `GET /listings` from `query.cursor` (or the start) to the last. */
  iterateListingPages(query: ListingsParams = {}): AsyncGenerator<ListingPage, void, undefined> {
    return this.listingsArea.pages(query);
  }

  /** Every listing matching `query`, across all keyset pages. */
  iterateListings(query: ListingsParams = {}): AsyncGenerator<Listing, void, undefined> {
    return this.listingsArea.all(query);
  }

  /** `GET /prices`: one page of the minAsk price list (402 insufficient_settled_balance before funding). */
  prices(query: PricesParams = {}, options: RequestOptions = {}): Promise<PriceList> {
    return this.pricesArea.list(query, options);
  }

  /** Every page of `GET /prices` from `query.cursor` (or the start) to the last. */
  iteratePricePages(query: PricesParams = {}): AsyncGenerator<PriceList, void, undefined> {
    return this.pricesArea.pages(query);
  }

  /** Every price row matching `query`, across all pages. */
  iteratePrices(query: PricesParams = {}): AsyncGenerator<PriceRow, void, undefined> {
    return this.pricesArea.all(query);
  }

  /**
   * `GET /prices/snapshot.ndjson.gz`: 304 when `etag` is still current (free), else the raw gzip
   * bytes with the new ETag. Downloads are held to the key's snapshot budget.
   * @example const result = await client.snapshot({ etag }); if (result.status === 200) await pipeline(result.body, createWriteStream(file));
   */
  snapshot(options: { etag?: string | undefined } & RequestOptions = {}): Promise<SnapshotResult> {
    return this.pricesArea.snapshot(options);
  }

  /**
   * A fetch for `/listings/stream` that adds the key, over this client's connections; it is not
   * queued or retried (the stream is not rate-limited, and `eventsource` reconnects by itself).
   * @example new EventSource(`${client.baseUrl}/listings/stream`, { fetch: client.streamFetch() })
   */
  streamFetch(): StreamFetch {
    return this.transport.streamFetch();
  }

  /** `GET /balance`: balance, settled funds and trading status. */
  balance(): Promise<Balance> {
    return this.account.balance();
  }

  /** `GET /transactions`: one page of the balance ledger, newest first. */
  transactions(query: TransactionsParams = {}, options: RequestOptions = {}): Promise<TransactionPage> {
    return this.account.transactions(query, options);
  }

  /** Every ledger row matching `query`, newest first, across all pages. */
  iterateTransactions(query: TransactionsParams = {}): AsyncGenerator<Transaction, void, undefined> {
    return this.account.allTransactions(query);
  }

  /**
   * `POST /orders` with an Idempotency-Key that doubles as custom_id; retried only with that key,
   * after looking the order up when its outcome is unknown (see {@link OrdersResource.create}).
   * @example const order = await client.createOrder({ listing_ids: [id] }, { idempotencyKey: randomUUID() });
   */
  createOrder(body: CreateOrderBody, options: PlaceOrderOptions): Promise<Order> {
    return this.orders.create(body, options);
  }

  /** `POST /market/buy` (CS2 only): buys for an end user by trade URL, idempotent like {@link createOrder}. */
  marketBuy(body: MarketBuyBody, options: PlaceOrderOptions): Promise<Order> {
    return this.orders.marketBuy(body, options);
  }

  /** `GET /orders/{id}`: one order of the game `appId` (default CS2). */
  getOrder(id: string, appId?: number): Promise<Order> {
    return this.orders.get(id, appId);
  }

  /** `GET /orders/info`: the order created with `customId`; throws 404 not_found when none. */
  getOrderByCustomId(customId: string, appId?: number): Promise<Order> {
    return this.orders.getByCustomId(customId, appId);
  }

  /** `GET /orders/info`, answering null instead of throwing 404 when no order carries `customId`. */
  findOrderByCustomId(customId: string, appId?: number): Promise<Order | null> {
    return this.orders.findByCustomId(customId, appId);
  }

  /** `GET /orders`: one page of the orders of a game, newest first. */
  listOrders(query: OrdersParams = {}, options: RequestOptions = {}): Promise<OrderPage> {
    return this.orders.list(query, options);
  }

  /** Every page of `GET /orders` from `query.cursor` (or the newest) to the oldest. */
  iterateOrderPages(query: OrdersParams = {}): AsyncGenerator<OrderPage, void, undefined> {
    return this.orders.pages(query);
  }

  /** Every order matching `query`, newest first, across all pages. */
  iterateOrders(query: OrdersParams = {}): AsyncGenerator<Order, void, undefined> {
    return this.orders.all(query);
  }

  /** `POST /orders/{id}/claim`: releases a held order after hold_until (409 not_claimable before). */
  claimOrder(id: string, appId?: number): Promise<Order> {
    return this.orders.claim(id, appId);
  }

  /** `GET /p2p/listings`: one page of the account's P2P listings; the same as `p2p.listings`. */
  p2pListings(query: P2PListingsParams = {}, options: RequestOptions = {}): Promise<P2PListingPage> {
    return this.p2p.listings(query, options);
  }

  /** `GET /sell/orders`: one page of the account's Instant Sell orders; the same as `instantSell.orders`. */
  sellOrders(query: SellOrdersParams = {}, options: RequestOptions = {}): Promise<SellOrderPage> {
    return this.instantSell.orders(query, options);
  }

  /** Gives back the key's budget and closes the connections this client opened. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
