/** What collectors hand the warehouse: batches of rows of one source, with that source's progress markers. */
import { ALL_LANDERS, type LandedFields } from './landers.js';

/**
 * Everything one source hands over at once: a field per lander of the registry (`events`,
 * `observations`, `gone`, `snapshot`, `minask`, `fx`, `gaps`, `state`), applied in registry order
 * in one transaction; `state` is written in the same transaction as the rows it covers.
 *
 * @example
 * { source: 'stream', events: [...], state: { last_event_id: 'abcdefgh-42' } }
 */
export interface WarehouseBatch extends LandedFields {
  /** e.g. `stream`, `poll:730`, `sweep:570`, `snapshot`, `prices:730`, `fx`. */
  source: string;
  /** The upstream's clock minus the collector's (ms) when the batch was collected, kept in `loads`. */
  upstreamOffsetMs?: number | null;
  /** The account the batch's rows belong to (account source), kept in `loads`. */
  accountId?: string;
}

/** What one committed batch landed. */
export interface LoadSummary {
  loadId: string;
  source: string;
  /** Rows the batch landed in the landing tables (`loads.rows`); state is not counted. */
  rows: number;
  /** Rows inserted or updated per table, for the tables the batch touched. */
  tables: Record<string, number>;
}

/** What one `write` committed, in batch order. */
export interface WriteSummary {
  loads: LoadSummary[];
  rows: number;
}

/** How many rows a batch carries, counting an otherwise empty batch as one. */
export function countBatchRows(batch: WarehouseBatch): number {
  let rows = 0;
  for (const lander of ALL_LANDERS) {
    const value = batch[lander.field];
    if (value !== undefined) rows += lander.rows(value);
  }
  return Math.max(1, rows);
}
