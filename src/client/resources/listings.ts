/** Listings: keyset pages of `GET /listings` and the walk across them. */
import type { z } from 'zod';
import { type Listing, listingPageSchema } from '../../contract/listing.js';
import { paginate } from '../paginate.js';
import { type ListingsParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** One page of `GET /listings`. */
export type ListingPage = z.infer<typeof listingPageSchema>;

/** The listings area of the API over a shared {@link Transport}. */
export class ListingsResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /listings`: one keyset page of live listings. */
  list(query: ListingsParams = {}): Promise<ListingPage> {
    return this.transport.json({ path: `/listings${toQueryString(query)}`, schema: listingPageSchema });
  }

  /** Every page of `GET /listings` from `query.cursor` (or the start) to the last. */
  pages(query: ListingsParams = {}): AsyncGenerator<ListingPage, void, undefined> {
    return paginate(
      (cursor) => this.list({ ...query, cursor }),
      (page) => page.next_cursor,
      query.cursor,
    );
  }

  /** Every listing matching `query`, across all keyset pages. */
  async *all(query: ListingsParams = {}): AsyncGenerator<Listing, void, undefined> {
    for await (const page of this.pages(query)) yield* page.items;
  }
}
