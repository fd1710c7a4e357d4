/** Merges queued batches into as few as possible without changing what they do or in which order. */
import type { WarehouseBatch } from './batch.js';

/** Apply order of the listing kinds inside one batch. */
const LISTING_KINDS = ['events', 'observations', 'gone'] as const;
const SINGLE_KINDS = ['snapshot', 'minask', 'fx'] as const;

/**
 * Merges each batch into the one before it when both come from the same source and the result
 * applies the same rows in the same order: listing rows only when the earlier batch's kinds all
 * apply before (or with) the later one's, and at most one snapshot, minAsk list and FX set each.
 * Merged `state` is a key-by-key merge where later batches win; gaps are concatenated.
 */
export function mergeBatches(batches: readonly WarehouseBatch[]): WarehouseBatch[] {
  const merged: WarehouseBatch[] = [];
  for (const batch of batches) {
    const last = merged.at(-1);
    if (last && canMerge(last, batch)) appendInto(last, batch);
    else merged.push(appendInto({ source: batch.source }, batch));
  }
  return merged;
}

function canMerge(a: WarehouseBatch, b: WarehouseBatch): boolean {
  if (a.source !== b.source) return false;
  if (SINGLE_KINDS.some((kind) => a[kind] !== undefined && b[kind] !== undefined)) return false;
  return lastListingKind(a) <= firstListingKind(b);
}

function lastListingKind(batch: WarehouseBatch): number {
  return LISTING_KINDS.findLastIndex((kind) => (batch[kind]?.length ?? 0) > 0);
}

function firstListingKind(batch: WarehouseBatch): number {
  const index = LISTING_KINDS.findIndex((kind) => (batch[kind]?.length ?? 0) > 0);
  return index === -1 ? LISTING_KINDS.length : index;
}

/** Appends `from` to `into` (a batch this module owns, so its arrays may grow in place). */
function appendInto(into: WarehouseBatch, from: WarehouseBatch): WarehouseBatch {
  if (from.events) into.events = append(into.events, from.events);
  if (from.observations) into.observations = append(into.observations, from.observations);
  if (from.gone) into.gone = append(into.gone, from.gone);
  if (from.gaps) into.gaps = append(into.gaps, from.gaps);
  if (from.snapshot) into.snapshot = from.snapshot;
  if (from.minask) into.minask = from.minask;
  if (from.fx) into.fx = from.fx;
  if (from.state) into.state = { ...into.state, ...from.state };
  return into;
}

function append<T>(into: T[] | undefined, rows: readonly T[]): T[] {
  const list = into ?? [];
  for (const row of rows) list.push(row);
  return list;
}
