/**
 * The change feed of an account's list endpoints (`updated_after`): without it a page runs newest
 * first by sequence number (the seq cursor); with it, only rows changed strictly after that instant,
 * oldest change first (`updated_at`, then `id`), continued by a cursor holding the last row's
 * (`updated_at`, `id`). A row changed while a reader pages moves past the reader's position and is
 * read again later, so a reader that keeps the greatest `updated_at` it saw, asks from it minus a
 * small overlap (for writes that commit out of clock order) and dedupes on (`id`, `updated_at`),
 * sees every change.
 */
import { ApiError } from '../../contract/api-error.js';
import type { Params } from '../../shared/database.js';
import { parseSeqCursor, seqCursor } from './seq-cursor.js';

/** Where a change-feed page starts: after this change (`id` null: every row changed after the instant). */
export interface ChangePosition {
  updatedMs: number;
  id: string | null;
}

/** The keyset of one list page: before a sequence number (newest first) or after a change. */
export interface PageKeyset {
  beforeSeq?: number | undefined;
  after?: ChangePosition | undefined;
}

/** The keyset a list request asks for, from its `updated_after` (epoch ms) and `cursor` (400 invalid_param on a foreign cursor). */
export function pageKeyset(
  tag: string,
  updatedAfter: number | undefined,
  cursor: string | undefined,
): PageKeyset {
  if (updatedAfter === undefined)
    return { beforeSeq: cursor === undefined ? undefined : parseSeqCursor(tag, cursor) };
  if (cursor === undefined) return { after: { updatedMs: updatedAfter, id: null } };
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):(\d{1,15}):(.{1,128})$/.exec(text);
  if (!match || match[1] !== `${tag}c`)
    throw new ApiError(
      'invalid_param',
      'cursor is not one this change feed gave; pass next_cursor back unchanged with the same updated_after',
    );
  return { after: { updatedMs: Number(match[2]), id: match[3] as string } };
}

/** The SQL filter, order and parameters of a keyset, over a table with `seq`, `id` and `updated_at`. */
export function keysetSql(keyset: PageKeyset): {
  where: string;
  orderBy: string;
  params: Record<string, string | number | null>;
} {
  if (keyset.after === undefined)
    return {
      where: '($before IS NULL OR seq < $before)',
      orderBy: 'seq DESC',
      params: { before: keyset.beforeSeq ?? null },
    };
  return {
    where: `(updated_at > make_timestamp($after_ms * 1000)
             OR (updated_at = make_timestamp($after_ms * 1000) AND $after_id IS NOT NULL AND id > $after_id))`,
    orderBy: 'updated_at, id',
    params: { after_ms: keyset.after.updatedMs, after_id: keyset.after.id },
  };
}

/** One page of an account's rows: its keyset, an optional status filter and the page size. */
export interface AccountPageQuery extends PageKeyset {
  accountId: string;
  status?: string | undefined;
  limit: number;
}

/**
 * The SQL and parameters reading one page of an account's rows (one row past the page, to tell
 * whether more follow): `select` is `SELECT … FROM <table>`, `extra` a further filter.
 */
export function accountPageSql(
  select: string,
  query: AccountPageQuery,
  extra: { where: string; params: Params } = { where: 'TRUE', params: {} },
): { sql: string; params: Params } {
  const keyset = keysetSql(query);
  return {
    sql: `${select}
       WHERE account_id = $account AND ($status IS NULL OR status = $status) AND ${extra.where}
         AND ${keyset.where}
       ORDER BY ${keyset.orderBy} LIMIT $limit`,
    params: {
      account: query.accountId,
      status: query.status ?? null,
      ...extra.params,
      ...keyset.params,
      limit: query.limit + 1,
    },
  };
}

/**
 * One page from up to `limit + 1` rows read with `keyset`: the first `limit` rows as `view`
 * renders them, and the cursor of the next page when the extra row says one exists.
 */
export function keysetPage<Row extends { seq: number; id: string; updatedAt: number }, Item>(
  tag: string,
  keyset: PageKeyset,
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => Item,
): { data: Item[]; meta: { next_cursor: string | null } } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  const next = !more
    ? null
    : keyset.after === undefined
      ? seqCursor(tag, last.seq)
      : Buffer.from(`${tag}c:${last.updatedAt}:${last.id}`).toString('base64url');
  return { data: page.map(view), meta: { next_cursor: next } };
}
