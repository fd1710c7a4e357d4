/** Listeners per warehouse: who hears of work done on a warehouse in this process, whoever asked for it. */
import type { Warehouse } from './warehouse.js';

/** Listeners of one kind of event, kept per warehouse (and dropped with it). */
export class WarehouseListeners<T> {
  private readonly byWarehouse = new WeakMap<Warehouse, Set<(event: T) => void>>();

  /** Calls `listener` with every event of `warehouse` from now on; returns what stops it. */
  on(warehouse: Warehouse, listener: (event: T) => void): () => void {
    const listeners = this.byWarehouse.get(warehouse) ?? new Set();
    this.byWarehouse.set(warehouse, listeners);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Tells every listener of `warehouse` of `event`. */
  emit(warehouse: Warehouse, event: T): void {
    for (const listener of this.byWarehouse.get(warehouse) ?? []) listener(event);
  }
}
