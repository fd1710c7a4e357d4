/** Walks a keyset-paged read from a cursor to the last page. */
import { UnexpectedResponseError } from './unexpected-response-error.js';

/**
 * Yields every page, passing each page's next cursor back unchanged until it is null.
 * @example for await (const page of paginate((c) => client.listings({ cursor: c }), (p) => p.next_cursor)) …
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
