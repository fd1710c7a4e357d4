/**
 * The webhooks feature's operations: endpoints (register, change, remove, rotate, test), the
 * deliveries of an endpoint and their retry, and the order.updated events queued in the same unit
 * of work as the order write they describe.
 */
import { randomBytes } from 'node:crypto';
import type {
  CreateWebhookBody,
  DeliveriesQuery,
  UpdateWebhookBody,
  WebhookTestResult,
} from '../../contract/webhook.js';
import { WEBHOOK_LIMITS } from '../../contract/webhook.js';
import type { Database } from '../../shared/database.js';
import { randomId } from '../core/api-keys.js';
import type { Clock } from '../core/clock.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { type DeliveryRecord, DeliveryStore } from './delivery-store.js';
import { Dispatcher } from './dispatcher.js';
import { type EndpointRecord, EndpointStore } from './endpoint-store.js';
import { WebhookSender } from './sender.js';
import { UrlGuard, type UrlGuardOptions } from './ssrf-guard.js';
import { orderUpdatedEvent } from './webhook-json.js';

/** What each operation may refuse with; the routes document exactly these lists. */
export const WEBHOOK_ERRORS = {
  create: ['invalid_webhook_url', 'too_many_webhooks'],
  update: ['invalid_webhook_url', 'not_found'],
  endpoint: ['not_found'],
  retry: ['not_found', 'already_delivered'],
} as const;

const refuse = refuseOnly(Object.values(WEBHOOK_ERRORS).flat());

/** An order just written, as trading announces it. */
export interface OrderSnapshot {
  id: string;
  accountId: string;
  /** The order exactly as GET /orders/{id} answers it at the write. */
  render(): string;
}

/** Options of webhook delivery. */
export interface WebhookOptions extends UrlGuardOptions {
  /** PEM of a CA trusted for loopback receivers (only with `allowLoopback`). */
  loopbackCa?: string | undefined;
  /** The real time, for signatures. @default Date.now */
  wallNow?: () => number;
}

/** What the webhooks feature uses. */
export interface WebhooksDeps {
  db: Database;
  units: UnitOfWorkRunner;
  clock: Clock;
  options?: WebhookOptions;
  onError?: (error: unknown) => void;
}

/** Endpoints, deliveries and their worker. */
export class Webhooks {
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly dispatcher: Dispatcher;
  private readonly guard: UrlGuard;
  private readonly sender: WebhookSender;

  constructor(private readonly deps: WebhooksDeps) {
    const options = deps.options ?? {};
    this.guard = new UrlGuard(options);
    this.sender = new WebhookSender({
      guard: this.guard,
      loopbackCa: options.allowLoopback ? options.loopbackCa : undefined,
      ...(options.wallNow ? { wallNow: options.wallNow } : {}),
    });
    this.endpoints = new EndpointStore(deps.db);
    this.deliveries = new DeliveryStore(deps.db);
    this.dispatcher = new Dispatcher({
      clock: deps.clock,
      units: deps.units,
      endpoints: this.endpoints,
      deliveries: this.deliveries,
      sender: this.sender,
      onError: deps.onError ?? (() => undefined),
    });
  }

  /** Loads the endpoints and the queue's position. */
  async load(): Promise<void> {
    await this.endpoints.load();
    await this.deliveries.load();
  }

  /** The account's endpoints, oldest first. */
  list(accountId: string): EndpointRecord[] {
    return this.endpoints.ofAccount(accountId);
  }

  /** Registers an endpoint (400 invalid_webhook_url, 409 too_many_webhooks); the answer carries its secret. */
  async create(accountId: string, body: CreateWebhookBody): Promise<EndpointRecord> {
    const url = await this.checkedUrl(body.url);
    return this.deps.units.run(async (uow) => {
      if (this.endpoints.ofAccountIn(uow, accountId).length >= WEBHOOK_LIMITS.maxEndpoints)
        throw refuse(
          'too_many_webhooks',
          `${WEBHOOK_LIMITS.maxEndpoints} endpoints are already registered; delete one first`,
        );
      const record: EndpointRecord = {
        id: `wh_${randomId(16)}`,
        seq: this.endpoints.takeSeq(),
        accountId,
        url,
        events: [...body.events],
        enabled: true,
        description: body.description ?? '',
        secret: newSecret(),
        lastSuccessAt: null,
        lastFailureAt: null,
        lastError: null,
        consecutiveFailures: 0,
        createdAt: uow.now,
      };
      await this.endpoints.insert(uow, record);
      return record;
    });
  }

  /** Changes an endpoint; `enabled: true` resets its failure counter and resumes its queue. */
  async update(accountId: string, id: string, body: UpdateWebhookBody): Promise<EndpointRecord> {
    this.owned(accountId, id);
    const url = body.url === undefined ? undefined : await this.checkedUrl(body.url);
    const updated = await this.deps.units.run(async (uow) => {
      const record = this.ownedIn(uow, accountId, id);
      if (url !== undefined) record.url = url;
      if (body.events !== undefined) record.events = [...body.events];
      if (body.description !== undefined) record.description = body.description;
      if (body.enabled === true && !record.enabled) record.consecutiveFailures = 0;
      if (body.enabled !== undefined) record.enabled = body.enabled;
      this.endpoints.update(uow, record);
      return record;
    });
    if (url !== undefined) this.sender.forget(id);
    if (updated.enabled) this.dispatcher.wake(id);
    return updated;
  }

  /** Removes an endpoint and its deliveries. */
  async remove(accountId: string, id: string): Promise<void> {
    await this.deps.units.run(async (uow) => {
      this.ownedIn(uow, accountId, id);
      await this.endpoints.remove(uow, id);
      this.deliveries.dropWebhook(uow, id);
    });
    this.sender.forget(id);
  }

  /** Gives the endpoint a new secret; deliveries sent from now on are signed with it. */
  rotateSecret(accountId: string, id: string): Promise<EndpointRecord> {
    return this.deps.units.run(async (uow) => {
      const record = this.ownedIn(uow, accountId, id);
      record.secret = newSecret();
      this.endpoints.update(uow, record);
      return record;
    });
  }

  /** Sends a webhook.test event now and answers what the receiver did (not queued, no effect on health). */
  async test(accountId: string, id: string): Promise<WebhookTestResult> {
    const endpoint = this.owned(accountId, id);
    const eventId = `evt_test_${randomId(20)}`;
    const payload = JSON.stringify({
      id: eventId,
      type: 'webhook.test',
      created_at: new Date(this.deps.clock.now()).toISOString(),
      data: { webhook_id: id, message: 'a test event sent by POST /webhooks/{id}/test' },
    });
    const outcome = await this.sender.send(`test:${id}`, endpoint.url, endpoint.secret, eventId, payload);
    this.sender.forget(`test:${id}`);
    // The receiver's own text says why it refused: the caller sees it here, not only in a record.
    const said = outcome.body ? `: ${outcome.body}` : '';
    return {
      delivered: outcome.ok,
      status_code: outcome.status,
      error: outcome.error === null ? null : `${outcome.error}${outcome.status === null ? '' : said}`,
      response_body: outcome.body,
      duration_ms: outcome.durationMs,
      event_id: eventId,
    };
  }

  /** A page of the endpoint's deliveries, newest first, one more than the limit when more follow. */
  deliveryPage(accountId: string, id: string, query: DeliveriesQuery & { beforeSeq?: number | undefined }) {
    this.owned(accountId, id);
    return this.deliveries.page({
      webhookId: id,
      status: query.status,
      beforeSeq: query.beforeSeq,
      limit: query.limit ?? 50,
    });
  }

  /** Re-arms a delivery with a fresh budget of attempts, due now (409 already_delivered once delivered). */
  async retry(accountId: string, id: string, deliveryId: string): Promise<DeliveryRecord> {
    const rearmed = await this.deps.units.run(async (uow) => {
      this.ownedIn(uow, accountId, id);
      const delivery = await this.deliveries.getIn(uow, deliveryId);
      if (!delivery || delivery.webhookId !== id)
        throw refuse('not_found', `no delivery ${deliveryId} on webhook ${id}`);
      if (delivery.status === 'delivered')
        throw refuse('already_delivered', `delivery ${deliveryId} was delivered; it is not sent again`);
      delivery.status = 'pending';
      delivery.attempts = 0;
      delivery.nextAttemptAt = uow.now;
      this.deliveries.update(uow, delivery);
      return delivery;
    });
    this.dispatcher.wake(id);
    return rearmed;
  }

  /**
   * Queues the order's order.updated event for every subscribed endpoint of its account. A disabled
   * endpoint queues too (only its attempts stop), so what changed while it was off goes out, in
   * order, once it is enabled again.
   */
  async orderWritten(uow: UnitOfWork, order: OrderSnapshot): Promise<void> {
    const targets = this.endpoints
      .ofAccountIn(uow, order.accountId)
      .filter((e) => e.events.includes('order.updated'))
      .map((e) => e.id);
    if (targets.length === 0) return;
    await this.deliveries.enqueue(uow, targets, orderUpdatedEvent(order.render(), uow.now));
    uow.afterCommit(() => {
      for (const id of targets) this.dispatcher.wake(id);
    });
  }

  /** Starts the lanes of every endpoint with deliveries due by `now`. */
  runDue(now: number): Promise<void> {
    return this.dispatcher.runDue(now);
  }

  /**
   * The earliest attempt due from `from` on, as recorded so far: a walk of the clock stops there.
   * A walk settles the sends of each stop first, so a retry they schedule is known here.
   */
  async nextDueFrom(from: number): Promise<number | null> {
    return this.deliveries.nextDueFrom(from);
  }

  /** Resolves once every lane has sent and recorded what was due (a walk of the clock waits for it). */
  settle(): Promise<void> {
    return this.dispatcher.idle();
  }

  /** Stops the worker (sends in flight stay queued). */
  stop(): Promise<void> {
    return this.dispatcher.stop();
  }

  private async checkedUrl(url: string): Promise<string> {
    const verdict = await this.guard.check(url);
    if (!verdict.ok) throw refuse('invalid_webhook_url', verdict.problem);
    return url;
  }

  private owned(accountId: string, id: string): EndpointRecord {
    const record = this.endpoints.get(id);
    if (!record || record.accountId !== accountId)
      throw refuse('not_found', `no webhook ${id} on this account`);
    return record;
  }

  private ownedIn(uow: UnitOfWork, accountId: string, id: string): EndpointRecord {
    const record = this.endpoints.getIn(uow, id);
    if (!record || record.accountId !== accountId)
      throw refuse('not_found', `no webhook ${id} on this account`);
    return record;
  }
}

/** A new signing secret: the prefix and 32 random bytes. */
function newSecret(): string {
  return `svc_whsec_${randomBytes(32).toString('base64url')}`;
}
