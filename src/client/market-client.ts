/**
 * The typed client of the marketplace API /v1: one resource per API area over a shared transport
 * (every answer parsed with the contract, retries and a per-key budget built in), and nothing else.
 */
import { checkObject, checkOptionalCount } from './check-arguments.js';
import type { MarketClientOptions } from './client-options.js';
import { ClientArgumentError } from './errors.js';
import { AccountResource } from './resources/account.js';
import { InstantSellResource } from './resources/instant-sell.js';
import { LenientResource } from './resources/lenient.js';
import { ListingsResource } from './resources/listings.js';
import { MarketInfoResource } from './resources/market-info.js';
import { OrdersResource } from './resources/orders.js';
import { P2PResource } from './resources/p2p.js';
import { PricesResource } from './resources/prices.js';
import { WebhooksResource } from './resources/webhooks.js';
import { Transport } from './transport.js';

/** Refuses options without a usable base URL, with a key that is not a string, or with a budget that allows nothing. */
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
  if (options.limits === undefined) return;
  checkObject('new MarketClient', 'limits', options.limits, '{ read: 95, windowMs: 60_000 }');
  for (const [name, value] of Object.entries(options.limits))
    checkOptionalCount('new MarketClient', `limits.${name}`, value);
}

/**
 * The typed client of the marketplace API: one resource per area of the API, like
 * `client.listings.list()` for `GET /listings`. The calls a collector repeats take a signal
 * (`RequestOptions`) that gives them up at once, wherever they wait.
 * @example
 * const client = new MarketClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey });
 * for await (const listing of client.listings.all({ limit: 200 })) console.log(listing.id);
 * await client.close();
 */
export class MarketClient {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The service's health, the games a key may read and the FX rates. */
  readonly info: MarketInfoResource;
  /** Keyset pages of live listings, the walk across them, and the fetch of their stream. */
  readonly listings: ListingsResource;
  /** The minAsk price list and its bulk gzip snapshot. */
  readonly prices: PricesResource;
  /** The balance with settled funds and trading status, and the balance ledger. */
  readonly account: AccountResource;
  /** Orders (idempotent placement, market buy, look-ups by id or custom_id, claims) and their pages. */
  readonly orders: OrdersResource;
  /** P2P selling: inventory, idempotent publishing (one or a batch), repricing, unlisting, listings. */
  readonly p2p: P2PResource;
  /** Instant Sell (invite-only): status, quotes, sell orders idempotent by external_id. */
  readonly instantSell: InstantSellResource;
  /** Webhook endpoints, their secret, tests and deliveries. */
  readonly webhooks: WebhooksResource;
  /** The pages a collector lands raw, read with their items unread (see {@link LenientResource}). */
  readonly lenient: LenientResource;
  private readonly transport: Transport;

  constructor(options: MarketClientOptions) {
    checkClientOptions(options);
    this.transport = new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.info = new MarketInfoResource(this.transport);
    this.listings = new ListingsResource(this.transport);
    this.prices = new PricesResource(this.transport);
    this.account = new AccountResource(this.transport);
    this.orders = new OrdersResource(this.transport);
    this.p2p = new P2PResource(this.transport);
    this.instantSell = new InstantSellResource(this.transport);
    this.webhooks = new WebhooksResource(this.transport);
    this.lenient = new LenientResource(this.transport);
  }

  /** Gives back the key's budget and closes the connections this client opened. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
