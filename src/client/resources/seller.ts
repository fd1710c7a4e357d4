/** The seller's side of an account, read-only: its P2P listings and Instant Sell orders, page by page. */
import { type P2PListingPage, p2pListingPageSchema } from '../../contract/p2p.js';
import { type SellOrderPage, sellOrderPageSchema } from '../../contract/sell.js';
import type { RequestOptions } from '../client-options.js';
import { type ChangeFeedParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** P2P listings and sell orders over a shared {@link Transport}. */
export class SellerResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /p2p/listings`: one page of the account's P2P listings (with `updated_after`: the change feed). */
  p2pListings(query: ChangeFeedParams = {}, options: RequestOptions = {}): Promise<P2PListingPage> {
    return this.transport.json({
      path: `/p2p/listings${toQueryString(query)}`,
      schema: p2pListingPageSchema,
      signal: options.signal,
    });
  }

  /** `GET /sell/orders`: one page of the account's Instant Sell orders (with `updated_after`: the change feed). */
  sellOrders(query: ChangeFeedParams = {}, options: RequestOptions = {}): Promise<SellOrderPage> {
    return this.transport.json({
      path: `/sell/orders${toQueryString(query)}`,
      schema: sellOrderPageSchema,
      signal: options.signal,
    });
  }
}
