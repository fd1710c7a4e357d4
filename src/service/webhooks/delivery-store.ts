/** The durable delivery queue: one row per (event, endpoint), written inside units of work, read when committed. */
import type { DeliveryStatus, WebhookEventType } from '../../contract/webhook.js';
import type { Database } from '../../shared/database.js';
import { randomId } from '../core/api-keys.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** One event's delivery to one endpoint (epoch ms). */
export interface DeliveryRecord {
  id: string;
  seq: number;
  webhookId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** The exact body sent. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** An event to queue: its envelope's id and type and the body to send. */
export interface QueuedEvent {
  id: string;
  type: WebhookEventType;
  payload: string;
}

const COLUMNS = `id, seq, webhook_id, event_id, event_type, payload, status, attempts,
  epoch_ms(next_attempt_at) AS next_ms, epoch_ms(last_attempt_at) AS last_ms, response_status, response_body,
  last_error, epoch_ms(created_at) AS created_ms, epoch_ms(delivered_at) AS delivered_ms`;

const ts = (param: string) =>
  `CASE WHEN $${param} IS NULL THEN NULL ELSE make_timestamp(CAST($${param} AS BIGINT) * 1000) END`;

/** Durable deliveries. */
export class DeliveryStore {
  private nextSeq = 1;

  constructor(private readonly db: Database) {}

  /** Reads the next sequence number. */
  async load(): Promise<void> {
    const [row] = await this.db.read<{ seq: number | bigint | null }>(
      'SELECT max(seq) AS seq FROM webhook_deliveries',
    );
    this.nextSeq = Number(row?.seq ?? 0) + 1;
  }

  /** Queues `event` for each endpoint, due at once; one statement for all of them. */
  async enqueue(uow: UnitOfWork, webhookIds: readonly string[], event: QueuedEvent): Promise<void> {
    if (webhookIds.length === 0) return;
    const params: Record<string, string | number> = {
      event: event.id,
      type: event.type,
      payload: event.payload,
      now: uow.now,
    };
    const rows = webhookIds.map((webhookId, i) => {
      params[`id${i}`] = `dlv_${randomId(20)}`;
      params[`seq${i}`] = this.nextSeq++;
      params[`hook${i}`] = webhookId;
      const at = 'make_timestamp(CAST($now AS BIGINT) * 1000)';
      return `($id${i}, $seq${i}, $hook${i}, $event, $type, $payload, 'pending', 0, ${at}, NULL, NULL, NULL, NULL, ${at}, NULL)`;
    });
    await uow.tx.runPrepared(`INSERT INTO webhook_deliveries VALUES ${rows.join(', ')}`, params);
  }

  /** Endpoints with a pending delivery due by `now` (committed). */
  async dueWebhooks(now: number): Promise<string[]> {
    const rows = await this.db.read<{ webhook_id: string }>(
      `SELECT DISTINCT webhook_id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= make_timestamp(CAST($now AS BIGINT) * 1000)`,
      { now },
    );
    return rows.map((r) => String(r.webhook_id));
  }

  /** The endpoint's pending delivery due first by `now` (committed), or undefined. */
  async nextDue(webhookId: string, now: number): Promise<DeliveryRecord | undefined> {
    const [row] = await this.db.read(
      `SELECT ${COLUMNS} FROM webhook_deliveries
       WHERE webhook_id = $hook AND status = 'pending' AND next_attempt_at <= make_timestamp(CAST($now AS BIGINT) * 1000)
       ORDER BY next_attempt_at, seq LIMIT 1`,
      { hook: webhookId, now },
    );
    return row ? fromRow(row) : undefined;
  }

  /** The delivery as the unit of work sees it, or undefined. */
  async getIn(uow: UnitOfWork, id: string): Promise<DeliveryRecord | undefined> {
    const [row] = await uow.tx.all(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $id`, { id });
    return row ? fromRow(row) : undefined;
  }

  /** A page of an endpoint's deliveries, newest first, one more than `limit` when more follow. */
  async page(query: {
    webhookId: string;
    status?: DeliveryStatus | undefined;
    beforeSeq?: number | undefined;
    limit: number;
  }): Promise<DeliveryRecord[]> {
    const rows = await this.db.read(
      `SELECT ${COLUMNS} FROM webhook_deliveries
       WHERE webhook_id = $hook AND ($status IS NULL OR status = $status) AND ($before IS NULL OR seq < $before)
       ORDER BY seq DESC LIMIT $limit`,
      {
        hook: query.webhookId,
        status: query.status ?? null,
        before: query.beforeSeq ?? null,
        limit: query.limit + 1,
      },
    );
    return rows.map(fromRow);
  }

  /** Writes the delivery's state as it is now. */
  async update(uow: UnitOfWork, d: DeliveryRecord): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE webhook_deliveries SET status = $status, attempts = $attempts, next_attempt_at = ${ts('next')},
         last_attempt_at = ${ts('last')}, response_status = $response_status, response_body = $response_body,
         last_error = $error, delivered_at = ${ts('delivered')}
       WHERE id = $id`,
      {
        id: d.id,
        status: d.status,
        attempts: d.attempts,
        next: d.nextAttemptAt,
        last: d.lastAttemptAt,
        response_status: d.responseStatus,
        response_body: d.responseBody,
        error: d.lastError,
        delivered: d.deliveredAt,
      },
    );
  }
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

function fromRow(r: Record<string, unknown>): DeliveryRecord {
  return {
    id: String(r.id),
    seq: Number(r.seq),
    webhookId: String(r.webhook_id),
    eventId: String(r.event_id),
    eventType: r.event_type as WebhookEventType,
    payload: String(r.payload),
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: num(r.next_ms),
    lastAttemptAt: num(r.last_ms),
    responseStatus: num(r.response_status),
    responseBody: text(r.response_body),
    lastError: text(r.last_error),
    createdAt: Number(r.created_ms),
    deliveredAt: num(r.delivered_ms),
  };
}
