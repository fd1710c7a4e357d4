/** Prices: pages of the minAsk price list, and the bulk gzip snapshot held to its own budget. */
import { type PriceList, type PriceRow, priceListSchema } from '../../contract/market.js';
import { checkOptionalObject } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import { headerOf, type StreamedAnswer } from '../http-attempt.js';
import { pagesOf, rowsOf } from '../paginate.js';
import { type PricesParams, toQueryString } from '../query-params.js';
import type { Transport } from '../transport.js';

/** The snapshot has not changed since the ETag sent. */
export interface SnapshotNotModified {
  status: 304;
  etag: string;
}

/**
 * A new snapshot: `body` is the raw gzip NDJSON bytes (not decompressed), a Node Readable to be
 * streamed to a file; consume it (or discard it with `body.dump()`), since it holds a connection.
 */
export interface SnapshotDownload {
  status: 200;
  etag: string | null;
  /** When the server built the snapshot (X-Generated-At), or null when not sent. */
  generatedAt: string | null;
  body: StreamedAnswer['body'];
}

/** The answer of {@link PricesResource.snapshot}. */
export type SnapshotResult = SnapshotNotModified | SnapshotDownload;

/** The price list and the snapshot over a shared {@link Transport}. */
export class PricesResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /prices`: one page of the minAsk price list (402 insufficient_settled_balance before funding). */
  list(query: PricesParams = {}, options: RequestOptions = {}): Promise<PriceList> {
    checkOptionalObject('prices.list', 'query', query);
    checkOptionalObject('prices.list', 'options', options);
    return this.transport.json({
      path: `/prices${toQueryString(query)}`,
      schema: priceListSchema,
      ...options,
    });
  }

  /** Every page of `GET /prices` from `query.cursor` (or the start) to the last. */
  pages(query: PricesParams = {}): AsyncGenerator<PriceList, void, undefined> {
    checkOptionalObject('prices.pages', 'query', query);
    return pagesOf(
      (q) => this.list(q),
      query,
      (page) => page.next_cursor,
    );
  }

  /** Every price row matching `query`, across all pages. */
  all(query: PricesParams = {}): AsyncGenerator<PriceRow, void, undefined> {
    checkOptionalObject('prices.all', 'query', query);
    return rowsOf(this.pages(query), (page) => page.items);
  }

  /**
   * `GET /prices/snapshot.ndjson.gz`: 304 when `etag` is still current (free), else the raw gzip
   * bytes with the new ETag. Downloads are held to the key's snapshot budget.
   * @example const result = await prices.snapshot({ etag }); if (result.status === 200) await pipeline(result.body, createWriteStream(file));
   */
  async snapshot(options: { etag?: string | undefined } & RequestOptions = {}): Promise<SnapshotResult> {
    checkOptionalObject('prices.snapshot', 'options', options);
    const { etag, signal } = options;
    const answer = await this.transport.download(
      '/prices/snapshot.ndjson.gz',
      'application/gzip',
      etag === undefined ? {} : { 'if-none-match': etag },
      { signal },
    );
    if (answer.status === 304) {
      await answer.body.dump();
      return { status: 304, etag: headerOf(answer.headers, 'etag') ?? etag ?? '' };
    }
    return {
      status: 200,
      etag: headerOf(answer.headers, 'etag') ?? null,
      generatedAt: headerOf(answer.headers, 'x-generated-at') ?? null,
      body: answer.body,
    };
  }
}
