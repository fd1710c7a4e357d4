/**
 * Trading: placing orders (POST /orders, POST /market/buy) idempotently, reading and listing them,
 * and claiming held ones. A placement whose outcome is unknown is looked up by its custom_id
 * before it is ever sent again, and then only with the same key.
 */
import { isApiError } from '../../contract/api-error.js';
import {
  type CreateOrderBody,
  customIdSchema,
  type MarketBuyBody,
  type Order,
  type OrderPage,
  orderPageSchema,
  orderSchema,
} from '../../contract/order.js';
import {
  checkIdempotencyKey,
  checkObject,
  checkOptionalAppId,
  checkOptionalObject,
  checkString,
} from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { ClientArgumentError } from '../errors.js';
import { metaPages, metaRows } from '../paginate.js';
import { type OrdersParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** How an order is placed. */
export interface PlaceOrderOptions {
  /**
   * Sent as the Idempotency-Key header on every attempt and doubling as the order's custom_id
   * (1-128 characters). Keep it: it finds the order again, and a new key can buy twice.
   */
  idempotencyKey: string;
}

const ORDER_EXAMPLE = 'client.orders.create({ listing_ids: [listing.id] }, { idempotencyKey: randomUUID() })';
const MARKET_BUY_EXAMPLE =
  'client.orders.marketBuy({ market_hash_name, max_price_usd: 5, trade_url }, { idempotencyKey: randomUUID() })';

/** Orders and market buys over a shared {@link Transport}. */
export class OrdersResource {
  constructor(private readonly transport: Transport) {}

  /**
   * `POST /orders`: buys listings from the balance for the key owner's linked account. Retried with
   * the same key on 429, price_updating, market_unavailable, 503 and network errors; after a
   * timeout, 504, order_failed or idempotency_in_progress the order is first looked up by custom_id.
   * @example const order = await orders.create({ listing_ids: [id], max_price_usd: 12.5 }, { idempotencyKey: randomUUID() });
   */
  create(body: CreateOrderBody, options: PlaceOrderOptions): Promise<Order> {
    checkObject('orders.create', 'body', body, ORDER_EXAMPLE);
    checkIdempotencyKey('orders.create', options, ORDER_EXAMPLE);
    return this.place('orders.create', '/orders', body, options, body.appId);
  }

  /** `POST /market/buy` (CS2 only): buys for an end user by trade URL, with the retries of {@link create}. */
  marketBuy(body: MarketBuyBody, options: PlaceOrderOptions): Promise<Order> {
    checkObject('orders.marketBuy', 'body', body, MARKET_BUY_EXAMPLE);
    checkIdempotencyKey('orders.marketBuy', options, MARKET_BUY_EXAMPLE);
    return this.place('orders.marketBuy', '/market/buy', body, options, undefined);
  }

  /** `GET /orders/{id}`: one order of the game `appId` (default CS2). */
  get(id: string, appId?: number): Promise<Order> {
    checkString('orders.get', 'id', id);
    checkOptionalAppId('orders.get', appId);
    const path = `/orders/${encodeURIComponent(id)}${toQueryString({ appId })}`;
    return this.transport.json({ path, schema: orderSchema });
  }

  /** `GET /orders/info`: the order created with `customId` (its Idempotency-Key); 404 not_found when none. */
  getByCustomId(customId: string, appId?: number): Promise<Order> {
    checkString('orders.getByCustomId', 'customId', customId);
    checkOptionalAppId('orders.getByCustomId', appId);
    const path = `/orders/info${toQueryString({ custom_id: customId, appId })}`;
    return this.transport.json({ path, schema: orderSchema });
  }

  /** Like {@link getByCustomId}, but null when no order carries `customId`. */
  async findByCustomId(customId: string, appId?: number): Promise<Order | null> {
    try {
      return await this.getByCustomId(customId, appId);
    } catch (error) {
      if (isApiError(error) && error.status === 404) return null;
      throw error;
    }
  }

  /** `GET /orders`: one page of the orders of a game, newest first. */
  list(query: OrdersParams = {}, options: RequestOptions = {}): Promise<OrderPage> {
    checkOptionalObject('orders.list', 'query', query);
    checkOptionalObject('orders.list', 'options', options);
    return this.transport.json({
      path: `/orders${toQueryString(query)}`,
      schema: orderPageSchema,
      signal: options.signal,
    });
  }

  /** Every page of `GET /orders` from `query.cursor` (or the newest) to the oldest. */
  pages(query: OrdersParams = {}): AsyncGenerator<OrderPage, void, undefined> {
    checkOptionalObject('orders.pages', 'query', query);
    return metaPages((q) => this.list(q), query);
  }

  /** Every order matching `query`, newest first, across all pages. */
  all(query: OrdersParams = {}): AsyncGenerator<Order, void, undefined> {
    checkOptionalObject('orders.all', 'query', query);
    return metaRows((q) => this.list(q), query);
  }

  /** `POST /orders/{id}/claim`: releases a held order after hold_until (409 not_claimable before); never retried. */
  claim(id: string, appId?: number): Promise<Order> {
    checkString('orders.claim', 'id', id);
    checkOptionalAppId('orders.claim', appId);
    const path = `/orders/${encodeURIComponent(id)}/claim${toQueryString({ appId })}`;
    return this.transport.json({ method: 'POST', path, schema: orderSchema });
  }

  private async place(
    call: string,
    path: string,
    body: CreateOrderBody | MarketBuyBody,
    options: PlaceOrderOptions,
    appId: number | undefined,
  ): Promise<Order> {
    const key = checkedKey(call, body.custom_id, options.idempotencyKey);
    return this.transport.json({
      method: 'POST',
      path,
      body,
      idempotencyKey: key,
      schema: orderSchema,
      lookUp: () => this.findByCustomId(key, appId),
    });
  }
}

/** The server treats the key and custom_id as one value; two different ones would be refused with a 400. */
function checkedKey(call: string, customId: string | undefined, idempotencyKey: string): string {
  if (!customIdSchema.safeParse(idempotencyKey).success) {
    throw new ClientArgumentError(
      `${call}: the idempotency key must be 1-128 characters, got ${idempotencyKey.length}`,
    );
  }
  if (customId !== undefined && customId !== idempotencyKey) {
    throw new ClientArgumentError(
      `${call}: custom_id and the idempotency key differ; leave custom_id out (the key doubles as custom_id) or send the same value`,
    );
  }
  return idempotencyKey;
}
