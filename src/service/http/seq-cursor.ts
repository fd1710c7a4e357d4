/** Opaque keyset cursors over a sequence number, for pages that run newest first (ledger rows, orders). */
import { ApiError } from '../../contract/api-error.js';

/** The cursor of the page after the row with sequence `seq`, tagged with the page's kind. */
export function seqCursor(tag: string, seq: number): string {
  return Buffer.from(`${tag}:${seq}`).toString('base64url');
}

/** The sequence number of a cursor this kind of page gave, or 400 invalid_param. */
export function parseSeqCursor(tag: string, cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):(\d{1,15})$/.exec(text);
  if (!match || match[1] !== tag)
    throw new ApiError(
      'invalid_param',
      'cursor is not one this endpoint gave; pass next_cursor back unchanged',
    );
  return Number(match[2]);
}

/**
 * One newest-first page from up to `limit + 1` rows read after the cursor: the first `limit` rows
 * as `view` renders them, and the cursor of the next page when the extra row says one exists.
 */
export function seqPage<Row extends { seq: number }, Item>(
  tag: string,
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => Item,
): { data: Item[]; meta: { next_cursor: string | null } } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(view),
    meta: { next_cursor: rows.length > limit && last ? seqCursor(tag, last.seq) : null },
  };
}
