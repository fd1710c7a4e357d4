/** Walks a keyset-paged read from a cursor to the last page. */
import { UnexpectedResponseError } from './errors.js';

/**
 * Yields every page, passing each page's next cursor back unchanged until it is null.
 * @example for await (const page of paginate((c) => client.listings.list({ cursor: c }), (p) => p.next_cursor)) …
 */
export async function* paginate<P>(
  readPage: (cursor: string | undefined) => Promise<P>,
  nextCursorOf: (page: P) => string | null,
  firstCursor?: string,
): AsyncGenerator<P, void, undefined> {
  let cursor = firstCursor;
  for (;;) {
    const page = await readPage(cursor);
    yield page;
    const next = nextCursorOf(page);
    if (next === null) return;
    // A server that hands back the cursor it was given would keep a daemon busy forever.
    if (next === cursor) {
      throw new UnexpectedResponseError(`the server returned the same cursor twice: ${next}`, '', 200);
    }
    cursor = next;
  }
}

/**
 * Every page of a keyset read from `query.cursor` (or the start), each next cursor passed back in `query`.
 * @example pagesOf((q) => orders.list(q), { status: 'hold' }, (page) => page.meta.next_cursor)
 */
export function pagesOf<Q extends { cursor?: string | undefined }, P>(
  read: (query: Q) => Promise<P>,
  query: Q,
  nextCursorOf: (page: P) => string | null,
): AsyncGenerator<P, void, undefined> {
  return paginate((cursor) => read({ ...query, cursor }), nextCursorOf, query.cursor);
}

/** The rows of every page, in order. */
export async function* rowsOf<P, R>(
  pages: AsyncIterable<P>,
  rowsOfPage: (page: P) => readonly R[],
): AsyncGenerator<R, void, undefined> {
  for await (const page of pages) yield* rowsOfPage(page);
}

/** A page of the account's reads (orders, ledger, P2P listings, sell orders, deliveries). */
export interface MetaPage<R> {
  data: readonly R[];
  meta: { next_cursor: string | null };
}

/**
 * Every page of a read whose pages carry their next cursor in `meta.next_cursor`.
 * @example metaPages((q) => orders.list(q), { status: 'hold' })
 */
export function metaPages<Q extends { cursor?: string | undefined }, P extends MetaPage<unknown>>(
  read: (query: Q) => Promise<P>,
  query: Q,
): AsyncGenerator<P, void, undefined> {
  return pagesOf(read, query, (page) => page.meta.next_cursor);
}

/** Every row of every page of such a read, in order. */
export function metaRows<Q extends { cursor?: string | undefined }, R>(
  read: (query: Q) => Promise<MetaPage<R>>,
  query: Q,
): AsyncGenerator<R, void, undefined> {
  return rowsOf(metaPages(read, query), (page) => page.data);
}
