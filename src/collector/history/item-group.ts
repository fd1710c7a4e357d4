/**
 * The item group a history request names (game, name, wear, Doppler phase) as SQL parameters and
 * filter, and the check that the warehouse holds it, so an unknown item is a 404, not empty buckets.
 */
import { ApiError } from '../../contract/api-error.js';
import type { HistoryReader } from './history-reader.js';

/** The parameters of {@link GROUP_FILTER}. */
export interface GroupParams {
  [name: string]: string | number | null;
  app_id: number;
  name: string;
  wear: string | null;
  phase: string | null;
}

/** The filter of a relation keyed by group: a left-out wear matches any, a left-out phase none. */
export const GROUP_FILTER = `app_id = $app_id AND market_hash_name = $name
    AND ($wear::VARCHAR IS NULL OR wear = $wear::VARCHAR) AND doppler_phase IS NOT DISTINCT FROM $phase::VARCHAR`;

/** The group of a request's query. */
export function groupParams(query: {
  appId: number;
  market_hash_name: string;
  wear?: string | undefined;
  phase?: string | undefined;
}): GroupParams {
  return {
    app_id: query.appId,
    name: query.market_hash_name,
    wear: query.wear ?? null,
    phase: query.phase ?? null,
  };
}

/**
 * Runs `read` of the group, and checks that the warehouse holds the group ({@link requireGroup})
 * only when the answer shows none of it (`seen` false) or the read failed (no model built yet): a
 * group with an observation has a run, so an answer that has one costs no second read.
 */
export async function readGroup<T>(
  reader: HistoryReader,
  group: GroupParams,
  read: () => Promise<T>,
  seen: (answer: T) => boolean,
): Promise<T> {
  let answer: T;
  try {
    answer = await read();
  } catch (error) {
    await requireGroup(reader, group);
    throw error;
  }
  if (!seen(answer)) await requireGroup(reader, group);
  return answer;
}

/**
 * Throws 404 `not_found` unless the collector has a cheapest ask of the group: a run of it in
 * `int_minask_spells`, the table behind `fct_minask_history` (each run has a row of the view at its
 * first minute), read without the view's join (1.7 ms against 11 ms on the history bench's warehouse).
 */
export async function requireGroup(reader: HistoryReader, group: GroupParams): Promise<void> {
  const built = await reader.has('int_minask_spells');
  const rows = built
    ? await reader.rows(`SELECT 1 FROM int_minask_spells WHERE ${GROUP_FILTER} LIMIT 1`, group)
    : [];
  if (rows.length > 0) return;
  const what = [group.name, group.wear, group.phase].filter((part) => part !== null).join(', ');
  throw new ApiError(
    'not_found',
    `the collector has no price history of ${what} (app ${group.app_id}); GET /v1/history/items lists what it has`,
  );
}
