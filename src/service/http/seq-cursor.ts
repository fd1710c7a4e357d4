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
