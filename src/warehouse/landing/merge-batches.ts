/** Merges queued batches into as few as possible without changing what they do or in which order. */
import type { WarehouseBatch } from './batch.js';
import { ALL_LANDERS } from './landers.js';

/** The `ordered` landers, in apply order. */
const ORDERED = ALL_LANDERS.filter((lander) => lander.merge === 'ordered');
/** The `once` landers: two batches that both carry one of their fields stay apart. */
const ONCE = ALL_LANDERS.filter((lander) => lander.merge === 'once');

/** A batch seen field by field. */
type Fields = Record<string, unknown>;

/**
 * Merges each batch into the one before it when both come from the same source and the result
 * applies the same rows in the same order, by each lander's merge rule: `ordered` fields only when
 * the earlier batch's all apply before (or with) the later one's, at most one value per batch of a
 * `once` field, `by-key` fields key by key with later batches winning, `append` fields concatenated.
 */
export function mergeBatches(batches: readonly WarehouseBatch[]): WarehouseBatch[] {
  const merged: WarehouseBatch[] = [];
  for (const batch of batches) {
    const last = merged.at(-1);
    if (last && canMerge(last, batch)) appendInto(last, batch);
    else
      merged.push(
        appendInto(
          { source: batch.source, ...(batch.accountId === undefined ? {} : { accountId: batch.accountId }) },
          batch,
        ),
      );
  }
  return merged;
}

function canMerge(a: WarehouseBatch, b: WarehouseBatch): boolean {
  // Rows of two accounts land in loads of their own.
  if (a.source !== b.source || a.accountId !== b.accountId) return false;
  if (ONCE.some(({ field }) => a[field] !== undefined && b[field] !== undefined)) return false;
  return lastOrdered(a) <= firstOrdered(b);
}

function hasRows(batch: WarehouseBatch, field: keyof WarehouseBatch): boolean {
  const value = batch[field];
  return Array.isArray(value) && value.length > 0;
}

function lastOrdered(batch: WarehouseBatch): number {
  return ORDERED.findLastIndex(({ field }) => hasRows(batch, field));
}

function firstOrdered(batch: WarehouseBatch): number {
  const index = ORDERED.findIndex(({ field }) => hasRows(batch, field));
  return index === -1 ? ORDERED.length : index;
}

/** Appends `from` to `into` (a batch this module owns, so its arrays may grow in place). */
function appendInto(into: WarehouseBatch, from: WarehouseBatch): WarehouseBatch {
  const target = into as unknown as Fields;
  for (const { field, merge } of ALL_LANDERS) {
    const value = from[field];
    if (value === undefined) continue;
    if (merge === 'once') target[field] = value;
    else if (merge === 'by-key') target[field] = { ...(target[field] as Fields | undefined), ...value };
    else target[field] = append(target[field] as unknown[] | undefined, value as readonly unknown[]);
  }
  return into;
}

function append<T>(into: T[] | undefined, rows: readonly T[]): T[] {
  const list = into ?? [];
  for (const row of rows) list.push(row);
  return list;
}
