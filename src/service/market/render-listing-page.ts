/** Renders a `/listings` page straight from the prepared JSON of its rows. */
import type { ListingPageResult } from './listing-query.js';

const HEAD = Buffer.from('{"items":[');
const COMMA = 0x2c;

/**
 * The exact response body `{"items":[...],"next_cursor":...}`, made by concatenating the rows'
 * prepared JSON.
 */
export function renderListingPage(page: ListingPageResult): Buffer {
  const tail = Buffer.from(`],"next_cursor":${JSON.stringify(page.nextCursor)}}`);
  let length = HEAD.length + tail.length + Math.max(0, page.items.length - 1);
  for (const item of page.items) length += item.jsonLength;
  const body = Buffer.allocUnsafe(length);
  let offset = HEAD.copy(body, 0);
  page.items.forEach((item, i) => {
    if (i > 0) body[offset++] = COMMA;
    offset = item.copyJsonTo(body, offset);
  });
  tail.copy(body, offset);
  return body;
}
