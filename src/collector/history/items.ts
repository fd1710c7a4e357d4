/**
 * `GET /v1/history/items`: the item groups the collector has a cheapest ask of, by name, wear and
 * phase, with the first and last minute of their history, so a client finds what to ask candles
 * of. Keyset paging on (name, wear, phase): a page never skips or repeats a group however the
 * history grows between pages.
 */
import type { z } from 'zod';
import { ApiError } from '../../contract/api-error.js';
import type { itemsAnswerSchema, itemsQuerySchema } from '../../contract/history.js';
import type { HistoryReader } from './history-reader.js';

/** Groups per answer. */
export const ITEMS_PAGE = 100;

const ITEMS_SQL = `
SELECT app_id, market_hash_name, wear, doppler_phase AS phase,
  min(minute) AS first_seen_at, max(minute) AS last_seen_at
FROM fct_minask_history
WHERE app_id = $app_id
  AND ($q::VARCHAR IS NULL OR contains(lower(market_hash_name), lower($q::VARCHAR)))
  AND ($after_name::VARCHAR IS NULL
    OR (market_hash_name, coalesce(wear, ''), coalesce(doppler_phase, ''))
      > ($after_name::VARCHAR, $after_wear::VARCHAR, $after_phase::VARCHAR))
GROUP BY app_id, market_hash_name, wear, doppler_phase
ORDER BY market_hash_name, coalesce(wear, ''), coalesce(doppler_phase, '')
LIMIT ${ITEMS_PAGE + 1}`;

/** Answers an items request: one page of groups after the cursor. */
export async function readItems(
  reader: HistoryReader,
  query: z.infer<typeof itemsQuerySchema>,
): Promise<z.infer<typeof itemsAnswerSchema>> {
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
  if (!(await reader.has('fct_minask_history'))) return { items: [], next_cursor: null };
  const rows = await reader.rows(ITEMS_SQL, {
    app_id: query.appId,
    q: query.q ?? null,
    after_name: after?.[0] ?? null,
    after_wear: after?.[1] ?? null,
    after_phase: after?.[2] ?? null,
  });
  const page = rows.slice(0, ITEMS_PAGE).map((row) => ({
    app_id: Number(row.app_id),
    market_hash_name: String(row.market_hash_name),
    wear: row.wear as string | null,
    phase: row.phase as string | null,
    first_seen_at: String(row.first_seen_at),
    last_seen_at: String(row.last_seen_at),
  }));
  const last = page.at(-1);
  const more = rows.length > ITEMS_PAGE && last !== undefined;
  return {
    items: page,
    next_cursor: more ? encodeCursor([last.market_hash_name, last.wear ?? '', last.phase ?? '']) : null,
  };
}

function encodeCursor(key: [string, string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): [string, string, string] {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown;
    if (Array.isArray(key) && key.length === 3 && key.every((part) => typeof part === 'string')) {
      return key as [string, string, string];
    }
  } catch {
    // Answered below.
  }
  throw new ApiError('invalid_param', 'cursor is not a next_cursor of this endpoint');
}
