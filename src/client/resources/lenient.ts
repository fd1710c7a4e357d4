/**
 * The collector's lenient reads: the pages it lands raw, with only what paging and deduplication
 * need typed (the cursor, and times) and every item kept as the JSON value the service sent, so one
 * item that breaks the contract, or a field it does not name yet, never fails the page.
 */
import { z } from 'zod';
import type { RequestOptions } from '../client-options.js';
import {
  type OrdersParams,
  type P2PListingsParams,
  type PricesParams,
  type SellOrdersParams,
  type TransactionsParams,
  toQueryString,
} from '../query-params.js';
import type { Transport } from '../transport.js';

/** A page of `GET /prices`, its items unread. */
export const lenientPriceListSchema = z.looseObject({
  generated_at: z.unknown(),
  items: z.array(z.unknown()),
  next_cursor: z.string().nullable(),
});
export type LenientPriceList = z.infer<typeof lenientPriceListSchema>;

/** A page of a `{ data, meta: { next_cursor } }` list, its rows unread. */
export const lenientMetaPageSchema = z.looseObject({
  data: z.array(z.unknown()),
  meta: z.looseObject({ next_cursor: z.string().nullable() }),
});
export type LenientMetaPage = z.infer<typeof lenientMetaPageSchema>;

/** The answer of `GET /currency`, unread but for being a JSON object. */
export const lenientCurrencySchema = z.record(z.string(), z.unknown());
export type LenientCurrency = z.infer<typeof lenientCurrencySchema>;

/** Lenient reads over a shared {@link Transport}: the same requests, budget and retries as the typed ones. */
export class LenientResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /prices`, items unread. */
  prices(query: PricesParams = {}, options: RequestOptions = {}): Promise<LenientPriceList> {
    return this.transport.json({
      path: `/prices${toQueryString(query)}`,
      schema: lenientPriceListSchema,
      signal: options.signal,
    });
  }

  /** `GET /currency`, unread. */
  currency(options: RequestOptions = {}): Promise<LenientCurrency> {
    return this.transport.json({ path: '/currency', schema: lenientCurrencySchema, signal: options.signal });
  }

  /** `GET /transactions`, rows unread. */
  transactions(query: TransactionsParams = {}, options: RequestOptions = {}): Promise<LenientMetaPage> {
    return this.transport.get('/transactions', query, lenientMetaPageSchema, options);
  }

  /** `GET /orders`, rows unread. */
  orders(query: OrdersParams = {}, options: RequestOptions = {}): Promise<LenientMetaPage> {
    return this.transport.get('/orders', query, lenientMetaPageSchema, options);
  }

  /** `GET /p2p/listings`, rows unread. */
  p2pListings(query: P2PListingsParams = {}, options: RequestOptions = {}): Promise<LenientMetaPage> {
    return this.transport.get('/p2p/listings', query, lenientMetaPageSchema, options);
  }

  /** `GET /sell/orders`, rows unread. */
  sellOrders(query: SellOrdersParams = {}, options: RequestOptions = {}): Promise<LenientMetaPage> {
    return this.transport.get('/sell/orders', query, lenientMetaPageSchema, options);
  }
}
