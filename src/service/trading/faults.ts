/**
 * Faults the sandbox operator arms (an upstream outage, a price refresh, and the next N orders
 * failing a given way), applied around the real placement as its {@link PlacementWrapper}: the
 * order path itself has no fault branch.
 */
import { refuseOnly } from '../core/refuse.js';
import type { LastStep, PlacementWrapper } from './ports.js';

/** What the armed faults answer a buy with. */
export const FAULT_ERRORS = [
  'market_unavailable',
  'price_updating',
  'upstream_timeout',
  'concurrent_update',
  'order_failed',
] as const;

const refuse = refuseOnly(FAULT_ERRORS);

/** The faults as `GET|POST /sandbox/faults` show and take them. */
export interface FaultState {
  market_unavailable: boolean;
  price_updating: boolean;
  upstream_timeout_next: number;
  order_failed_next: number;
  concurrent_update_next: number;
}

/** The faults that count down per order. */
export type CountedFault = 'upstream_timeout_next' | 'order_failed_next' | 'concurrent_update_next';

/** The armed faults, wrapped around every placement. */
export class Faults implements PlacementWrapper {
  private state: FaultState = {
    market_unavailable: false,
    price_updating: false,
    upstream_timeout_next: 0,
    order_failed_next: 0,
    concurrent_update_next: 0,
  };

  /** The current faults. */
  view(): FaultState {
    return { ...this.state };
  }

  /** Changes the given faults; the others stay. */
  configure(change: { [K in keyof FaultState]?: FaultState[K] | undefined }): FaultState {
    for (const [name, value] of Object.entries(change))
      if (value !== undefined) Object.assign(this.state, { [name]: value });
    return this.view();
  }

  /**
   * Refuses while an outage or a price refresh is armed, or for the next racing order; else places,
   * failing the next order at its last step (rolled back whole), or letting it complete and
   * answering that its outcome is not known yet (the key then replays the order).
   */
  async around<T>(place: (lastStep: LastStep) => Promise<T>): Promise<T> {
    if (this.state.market_unavailable)
      throw refuse('market_unavailable', 'the upstream market is down; nothing was charged; retry later');
    if (this.state.price_updating)
      throw refuse('price_updating', 'prices are being refreshed; retry in a few seconds with the same key');
    const timesOut = this.take('upstream_timeout_next');
    if (this.take('concurrent_update_next'))
      throw refuse('concurrent_update', 'another order is buying the same listing; retry in a second', {
        retry_after_seconds: 1,
      });
    const placed = await place(this.failingStep());
    if (timesOut)
      throw refuse(
        'upstream_timeout',
        'the purchase outcome is not known yet; resend with the same custom_id to get it',
      );
    return placed;
  }

  /** The last step of one order: it fails when an order_failed is armed as it first gets there. */
  private failingStep(): LastStep {
    // Decided once per order: its unit of work may run again after a shared rollback.
    let fails: boolean | undefined;
    return () => {
      fails ??= this.take('order_failed_next');
      if (fails)
        throw refuse(
          'order_failed',
          'the order could not be completed; look it up by custom_id before retrying',
        );
    };
  }

  private take(fault: CountedFault): boolean {
    if (this.state[fault] <= 0) return false;
    this.state[fault] -= 1;
    return true;
  }
}
