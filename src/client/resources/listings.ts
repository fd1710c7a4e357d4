/** Listings: keyset pages of `GET /listings` and the walk across them. */
import type { z } from 'zod';
import { type Listing, listingPageSchema } from '../../contract/listing.js';
import { checkOptionalObject } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { pagesOf, rowsOf } from '../paginate.js';
import { type ListingsParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** One page of `GET /listings`. */
export type ListingPage = z.infer<typeof listingPageSchema>;

/** The listings area of the API over a shared {@link Transport}. */
export class ListingsResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /listings`: one keyset page of live listings. */
  list(query: ListingsParams = {}, options: RequestOptions = {}): Promise<ListingPage> {
    checkOptionalObject('listings', 'query', query);
    checkOptionalObject('listings', 'options', options);
    return this.transport.json({
      path: `/listings${toQueryString(query)}`,
      schema: listingPageSchema,
      ...options,
    });
  }

  /** Every page of `GET /listings` from `query.cursor` (or the start) to the last. */
  pages(query: ListingsParams = {}): AsyncGenerator<ListingPage, void, undefined> {
    checkOptionalObject('iterateListingPages', 'query', query);
    return pagesOf(
      (q) => this.list(q),
      query,
      (page) => page.next_cursor,
    );
  }

  /** Every listing matching `query`, across all keyset pages. */
  all(query: ListingsParams = {}): AsyncGenerator<Listing, void, undefined> {
    checkOptionalObject('iterateListings', 'query', query);
    return rowsOf(this.pages(query), (page) => page.items);
  }
}
