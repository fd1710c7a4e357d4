/**
 * Instant Sell (invite-only): access and terms, quotes, and sell orders made idempotent by their
 * external_id. The server answers a repeated external_id with the order it made (200,
 * `Idempotent-Replay: true`), so an order whose outcome is unknown is sent again unchanged.
 */
import {
  type CreateSellOrderBody,
  type SellOrder,
  type SellOrderPage,
  type SellQuote,
  type SellQuoteBody,
  type SellStatus,
  sellOrderPageSchema,
  sellOrderSchema,
  sellQuoteSchema,
  sellStatusSchema,
} from '../../contract/sell.js';
import { checkObject, checkOptionalObject, checkString } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { metaPages, metaRows } from '../paginate.js';
import type { SellOrdersParams } from '../query-params.js';
import type { Transport } from '../transport.js';

/** The Instant Sell endpoints over a shared {@link Transport}. */
export class InstantSellResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /sell/status`: whether this account has Instant Sell, with its terms (spread, bots, settlement). */
  status(options: RequestOptions = {}): Promise<SellStatus> {
    checkOptionalObject('instantSell.status', 'options', options);
    return this.transport.get('/sell/status', {}, sellStatusSchema, options);
  }

  /**
   * `POST /sell/quotes`: the exact USD credited per eligible copy of the inventory behind the trade
   * URL, binding until expires_at. A fresh inventory answers 409 inventory_pending with
   * retry_after_ms; never retried.
   */
  quote(body: SellQuoteBody, options: RequestOptions = {}): Promise<SellQuote> {
    checkObject('instantSell.quote', 'body', body, 'client.instantSell.quote({ trade_url })');
    checkOptionalObject('instantSell.quote', 'options', options);
    return this.transport.json({
      method: 'POST',
      path: '/sell/quotes',
      body,
      schema: sellQuoteSchema,
      signal: options.signal,
    });
  }

  /**
   * `POST /sell/orders`: sells a quote's eligible items. With external_id it is retried unchanged on
   * 429, 503, network errors, timeouts and 5xx (the server replays the order made under it);
   * a 409 (idempotency_key_mismatch, sell_quote_used, sell_total_below_minimum …) is thrown as it
   * is. Without external_id it is never retried.
   * @example const order = await client.instantSell.createOrder({ quote_id, min_total_usd: 40, external_id: randomUUID() });
   */
  createOrder(body: CreateSellOrderBody, options: RequestOptions = {}): Promise<SellOrder> {
    checkObject(
      'instantSell.createOrder',
      'body',
      body,
      'client.instantSell.createOrder({ quote_id, min_total_usd, external_id: randomUUID() })',
    );
    checkOptionalObject('instantSell.createOrder', 'options', options);
    const keyed =
      body.external_id === undefined
        ? {}
        : { idempotencyKey: body.external_id, keyInBody: true, replaysByKey: true };
    return this.transport.json({
      method: 'POST',
      path: '/sell/orders',
      body,
      schema: sellOrderSchema,
      signal: options.signal,
      ...keyed,
    });
  }

  /** `GET /sell/orders/{id}`: one sell order with its bot offers and credited and settled amounts. */
  getOrder(id: string, options: RequestOptions = {}): Promise<SellOrder> {
    checkString('instantSell.getOrder', 'id', id);
    checkOptionalObject('instantSell.getOrder', 'options', options);
    return this.transport.get(`/sell/orders/${encodeURIComponent(id)}`, {}, sellOrderSchema, options);
  }

  /** `GET /sell/orders`: one page of the account's sell orders, newest first (`updated_after`: the change feed). */
  orders(query: SellOrdersParams = {}, options: RequestOptions = {}): Promise<SellOrderPage> {
    checkOptionalObject('instantSell.orders', 'query', query);
    checkOptionalObject('instantSell.orders', 'options', options);
    return this.transport.get('/sell/orders', query, sellOrderPageSchema, options);
  }

  /** Every page of `GET /sell/orders` from `query.cursor` (or the first) to the last. */
  readonly orderPages = (query: SellOrdersParams = {}) => metaPages((q) => this.orders(q), query);

  /** Every sell order matching `query`, across all pages. */
  readonly allOrders = (query: SellOrdersParams = {}) => metaRows((q) => this.orders(q), query);
}
