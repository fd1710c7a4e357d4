/**
 * The delivery worker. The service clock's due work (and every new event) starts one lane per
 * endpoint with deliveries due; a lane sends that endpoint's due deliveries one at a time, oldest
 * due first, each signed with the secret current at send time, and records each attempt in its own
 * unit of work. Lanes run beside each other and beside the due work, so a slow or dead receiver
 * costs only its own deliveries. A delivery is recorded delivered only after its 2xx, so a crash
 * loses nothing and at worst sends one again (at-least-once).
 */
import type { Clock } from '../core/clock.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import { applyAttempt } from './attempt-outcome.js';
import type { DeliveryRecord, DeliveryStore } from './delivery-store.js';
import type { EndpointStore } from './endpoint-store.js';
import type { SendOutcome, WebhookSender } from './sender.js';

/** Attempts of one endpoint whose records may be on their way while it sends the next. */
const RECORDS_AHEAD = 8;

/** What the dispatcher uses. */
export interface DispatcherDeps {
  clock: Clock;
  units: UnitOfWorkRunner;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  sender: WebhookSender;
  /** Told of a lane that failed unexpectedly (a database error); the delivery stays queued. */
  onError: (error: unknown) => void;
}

/** Runs the lanes. */
export class Dispatcher {
  private readonly lanes = new Map<string, Promise<void>>();
  /** Endpoints woken while their lane ran: it looks again when it ends. */
  private readonly again = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: DispatcherDeps) {}

  /** Starts a lane for every enabled endpoint with deliveries due by `now`; does not wait for the sends. */
  async runDue(now: number): Promise<void> {
    for (const id of this.deps.deliveries.dueWebhooks(now)) this.wake(id);
  }

  /** Starts the endpoint's lane, or has the running one look again before it ends. */
  wake(webhookId: string): void {
    if (this.stopped) return;
    if (this.lanes.has(webhookId)) {
      this.again.add(webhookId);
      return;
    }
    const lane = this.lane(webhookId)
      .catch((error: unknown) => this.deps.onError(error))
      .finally(() => {
        this.lanes.delete(webhookId);
        if (this.again.delete(webhookId)) this.wake(webhookId);
      });
    this.lanes.set(webhookId, lane);
  }

  /** Resolves when no lane is running (tests and benchmarks wait for the queue to settle). */
  async idle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all([...this.lanes.values()]);
  }

  /**
   * Starts no new send, aborts the ones in flight (left unrecorded: they stay queued and go again
   * after a restart) and waits for the lanes to end.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.sender.abortAll();
    await this.idle();
    await this.deps.sender.close();
  }

  /**
   * Sends the endpoint's due deliveries one at a time; the attempt just made is recorded while the
   * next is sent (at most RECORDS_AHEAD outstanding), never picking a delivery whose record is still
   * on its way.
   */
  private async lane(webhookId: string): Promise<void> {
    const { clock, endpoints, deliveries, sender } = this.deps;
    const recording = new Map<string, Promise<void>>();
    try {
      for (;;) {
        this.again.delete(webhookId);
        const endpoint = endpoints.get(webhookId);
        if (this.stopped || !endpoint?.enabled) return;
        const at = clock.now();
        const delivery = deliveries.nextDue(webhookId, at, recording);
        if (!delivery) return;
        const outcome = await sender.send(
          webhookId,
          endpoint.url,
          endpoint.secret,
          delivery.eventId,
          delivery.payload,
        );
        if (this.stopped) return;
        const recorded = this.record(webhookId, delivery, outcome, at).finally(() =>
          recording.delete(delivery.id),
        );
        recording.set(delivery.id, recorded);
        if (recording.size >= RECORDS_AHEAD) await Promise.race(recording.values());
      }
    } finally {
      await Promise.all(recording.values());
    }
  }

  private async record(webhookId: string, delivery: DeliveryRecord, outcome: SendOutcome, at: number) {
    const { endpoints, deliveries } = this.deps;
    await this.deps.units.run(async (uow) => {
      const current = deliveries.pendingIn(uow, webhookId, delivery.id);
      // Deleted with its endpoint, or re-armed while in flight: the attempt belongs to no budget.
      if (current?.attempts !== delivery.attempts) return;
      const owner = endpoints.getIn(uow, webhookId);
      applyAttempt(current, owner, outcome, at);
      deliveries.update(uow, current);
      if (owner) endpoints.update(uow, owner);
    });
  }
}
