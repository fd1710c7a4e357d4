/** Faults the sandbox operator arms: an upstream outage, a price refresh, and the next N orders failing a given way. */

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

/** The armed faults. */
export class Faults {
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

  /** True while an outage or a price refresh is armed. */
  isOn(fault: 'market_unavailable' | 'price_updating'): boolean {
    return this.state[fault];
  }

  /** True (and counts it down) when the next order meets this fault. */
  take(fault: CountedFault): boolean {
    if (this.state[fault] <= 0) return false;
    this.state[fault] -= 1;
    return true;
  }
}
