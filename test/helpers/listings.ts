/** Reading every listing of a game through the API, for reference computations in tests. */
import type { Listing } from '../../src/contract/listing.js';
import type { TestService } from './service.js';

/** Pages through `/listings` with `query` until the end and returns every row in order. */
export async function readAllListings(t: TestService, key: string, query = ''): Promise<Listing[]> {
  const rows: Listing[] = [];
  let cursor: string | null = null;
  do {
    const page = await t.call(`/listings?limit=200${query}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    if (page.status !== 200) throw new Error(`listing page failed: ${page.text}`);
    rows.push(...page.body.items);
    cursor = page.body.next_cursor;
  } while (cursor);
  return rows;
}

/** The ids of rows, for set comparisons. */
export function idsOf(rows: readonly { id: string }[]): string[] {
  return rows.map((r) => r.id);
}
