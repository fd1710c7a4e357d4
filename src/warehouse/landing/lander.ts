/** What one kind of landed data declares: its batch field, how two batches merge it, and how it lands. */
import type { LandingContext } from './sql.js';

/**
 * How the field of two adjacent batches of one source merges into one batch:
 * - `append`: the lists are concatenated;
 * - `ordered`: concatenated too, but the ordered fields apply in registry order inside a batch, so
 *   two batches merge only when that keeps the order they would have applied in one after the other;
 * - `once`: at most one value per batch, so two batches that both carry one stay apart;
 * - `by-key`: key by key, the later batch winning.
 */
export type MergeRule<T> = T extends readonly unknown[]
  ? 'append' | 'ordered' | 'once'
  : T extends Readonly<Record<string, string>>
    ? 'by-key' | 'once'
    : 'once';

/** One kind of landed data: a field of `WarehouseBatch` and the code that lands it. */
export interface Lander<F extends string, T> {
  /** The batch field, e.g. `events`. */
  readonly field: F;
  /** How two batches' values of the field merge (see {@link MergeRule}). */
  readonly merge: MergeRule<T>;
  /** Rows the value adds to a batch's size, for the batch writer's flush threshold. */
  rows(value: T): number;
  /** Lands the value inside the batch's transaction, counting the rows it changes per table. */
  land(context: LandingContext, value: T): Promise<void>;
}

/** Declares a lander, keeping its field name and value type for the batch type. */
export function defineLander<const F extends string, T>(lander: Lander<F, T>): Lander<F, T> {
  return lander;
}
