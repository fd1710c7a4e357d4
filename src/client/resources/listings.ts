/** Listings: keyset pages of `GET /listings`, the walk across them, and the fetch of their stream. */
import { z } from 'zod';
import { type Listing, listingPageSchema } from '../../contract/listing.js';
import { checkOptionalObject } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { pagesOf, rowsOf } from '../paginate.js';
import { type ListingsParams, toQueryString } from '../query-params.js';
import type { StreamFetch, Transport } from '../transport.js';

/** One page of `GET /listings`. */
export type ListingPage = z.infer<typeof listingPageSchema>;

/**
 * A page of `GET /listings` read leniently: only what paging needs is checked (the items are a
 * list, the cursor a string or null); each item is kept as the server sent it, whatever it holds.
 */
const rawListingPageSchema = z.object({ items: z.array(z.unknown()), next_cursor: z.string().nullable() });

/** One page of `GET /listings` with its items unchecked (see {@link ListingsResource.listRaw}). */
export type RawListingPage = z.infer<typeof rawListingPageSchema>;

/** The listings area of the API over a shared {@link Transport}. */
export class ListingsResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /listings`: one keyset page of live listings. */
  list(query: ListingsParams = {}, options: RequestOptions = {}): Promise<ListingPage> {
    checkOptionalObject('listings.list', 'query', query);
    checkOptionalObject('listings.list', 'options', options);
    return this.transport.json({
      path: `/listings${toQueryString(query)}`,
      schema: listingPageSchema,
      ...options,
    });
  }

  /**
   * `GET /listings` read leniently: one keyset page whose items are not checked against the
   * contract, so an item the server sends malformed or with new fields reaches the caller as sent.
   */
  listRaw(query: ListingsParams = {}, options: RequestOptions = {}): Promise<RawListingPage> {
    checkOptionalObject('listings.listRaw', 'query', query);
    checkOptionalObject('listings.listRaw', 'options', options);
    return this.transport.json({
      path: `/listings${toQueryString(query)}`,
      schema: rawListingPageSchema,
      ...options,
    });
  }

  /** Every page of `GET /listings` from `query.cursor` (or the start) to the last. */
  pages(query: ListingsParams = {}): AsyncGenerator<ListingPage, void, undefined> {
    checkOptionalObject('listings.pages', 'query', query);
    return pagesOf(
      (q) => this.list(q),
      query,
      (page) => page.next_cursor,
    );
  }

  /** Every listing matching `query`, across all keyset pages. */
  all(query: ListingsParams = {}): AsyncGenerator<Listing, void, undefined> {
    checkOptionalObject('listings.all', 'query', query);
    return rowsOf(this.pages(query), (page) => page.items);
  }

  /**
   * A fetch for `/listings/stream` that adds the key, over the client's connections; it is not
   * queued or retried (the stream is not rate-limited, and the reader reconnects by itself).
   * @example new EventSource(`${client.baseUrl}/listings/stream`, { fetch: client.listings.streamFetch() })
   */
  streamFetch(): StreamFetch {
    return this.transport.streamFetch();
  }
}
