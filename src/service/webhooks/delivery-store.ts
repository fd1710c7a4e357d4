/**
 * The durable delivery queue: one row per (event, endpoint), written inside units of work, and an
 * append-only log of each delivery's states (appending is far cheaper than updating in DuckDB); a
 * transaction's state changes are appended in one statement before it commits. The pending
 * deliveries are also indexed in memory, following each commit, so the worker finds what is due
 * without a query.
 */
import { z } from 'zod';
import {
  type DeliveryStatus,
  deliveryStatusSchema,
  type WebhookEventType,
  webhookEventTypeSchema,
} from '../../contract/webhook.js';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRow } from '../../shared/row-schema.js';
import { randomId } from '../core/api-keys.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { timestampOf } from './sql-values.js';

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
  /** Version of the state (0 before any change). */
  version: number;
}

/** An event to queue: its envelope's id and type and the body to send. */
export interface QueuedEvent {
  id: string;
  type: WebhookEventType;
  payload: string;
}

/** Each delivery with its current state: the highest version of its log, or the initial one. */
const CURRENT = `
  SELECT d.id, d.seq, d.webhook_id, d.event_id, d.event_type, d.payload, epoch_ms(d.created_at) AS created_ms,
         coalesce(s.status, 'pending') AS status, coalesce(s.attempts, 0) AS attempts,
         CASE WHEN s.delivery_id IS NULL THEN epoch_ms(d.created_at) ELSE epoch_ms(s.next_attempt_at) END AS next_ms,
         epoch_ms(s.last_attempt_at) AS last_ms, s.response_status, s.response_body, s.last_error,
         epoch_ms(s.delivered_at) AS delivered_ms, coalesce(s.version, 0) AS version
  FROM webhook_deliveries d
  LEFT JOIN (SELECT * FROM webhook_delivery_states WHERE $hook IS NULL OR webhook_id = $hook
             QUALIFY row_number() OVER (PARTITION BY delivery_id ORDER BY version DESC) = 1) s
    ON s.delivery_id = d.id
  WHERE ($hook IS NULL OR d.webhook_id = $hook)`;

const ROW_SHAPE = JSON.stringify([
  {
    id: 'VARCHAR',
    webhook_id: 'VARCHAR',
    version: 'INTEGER',
    status: 'VARCHAR',
    attempts: 'INTEGER',
    next: 'BIGINT',
    last: 'BIGINT',
    response_status: 'INTEGER',
    response_body: 'VARCHAR',
    error: 'VARCHAR',
    delivered: 'BIGINT',
  },
]);

/** Durable deliveries with their pending ones indexed in memory. */
export class DeliveryStore {
  private nextSeq = 1;
  /** Committed pending deliveries by endpoint. */
  private readonly pending = new Map<string, Map<string, DeliveryRecord>>();
  /** Deliveries changed by the transaction in progress, by its batch. */
  private readonly staged = new WeakMap<object, Map<string, DeliveryRecord>>();

  constructor(private readonly db: Database) {}

  /** Reads the next sequence number and indexes the pending deliveries. */
  async load(): Promise<void> {
    const [row] = await this.db.read<{ seq: number | bigint | null }>(
      'SELECT max(seq) AS seq FROM webhook_deliveries',
    );
    this.nextSeq = Number(row?.seq ?? 0) + 1;
    const rows = await this.db.read(`SELECT * FROM (${CURRENT}) WHERE status = 'pending'`, { hook: null });
    for (const r of rows) this.index(fromRow(r));
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
    const records = webhookIds.map((webhookId) =>
      queued(webhookId, `dlv_${randomId(20)}`, this.nextSeq++, event, uow.now),
    );
    const rows = records.map((record, i) => {
      params[`id${i}`] = record.id;
      params[`seq${i}`] = record.seq;
      params[`hook${i}`] = record.webhookId;
      const at = 'make_timestamp(CAST($now AS BIGINT) * 1000)';
      return `($id${i}, $seq${i}, $hook${i}, $event, $type, $payload, ${at})`;
    });
    await uow.tx.runPrepared(`INSERT INTO webhook_deliveries VALUES ${rows.join(', ')}`, params);
    uow.afterCommit(() => {
      for (const record of records) this.index(record);
    });
  }

  /** Pending deliveries (committed), for the operator's metrics. */
  pendingCount(): number {
    let count = 0;
    for (const rows of this.pending.values()) count += rows.size;
    return count;
  }

  /** Endpoints with a pending delivery due by `now` (committed). */
  dueWebhooks(now: number): string[] {
    return [...this.pending].flatMap(([webhookId, rows]) =>
      [...rows.values()].some((d) => (d.nextAttemptAt ?? Infinity) <= now) ? [webhookId] : [],
    );
  }

  /** The earliest attempt time of a pending delivery from `from` on (committed), or null. */
  nextDueFrom(from: number): number | null {
    let earliest: number | null = null;
    for (const rows of this.pending.values())
      for (const d of rows.values()) {
        const at = d.nextAttemptAt;
        if (at !== null && at >= from && (earliest === null || at < earliest)) earliest = at;
      }
    return earliest;
  }

  /** The endpoint's pending delivery due first by `now` (committed; a copy) outside `skip`, or undefined. */
  nextDue(webhookId: string, now: number, skip: ReadonlyMap<string, unknown>): DeliveryRecord | undefined {
    let first: DeliveryRecord | undefined;
    for (const d of this.pending.get(webhookId)?.values() ?? []) {
      const at = d.nextAttemptAt ?? Infinity;
      if (at > now || skip.has(d.id)) continue;
      const firstAt = first?.nextAttemptAt ?? Infinity;
      if (!first || at < firstAt || (at === firstAt && d.seq < first.seq)) first = d;
    }
    return first && { ...first };
  }

  /** The pending delivery as the unit of work sees it (a copy), or undefined once it is not pending. */
  pendingIn(uow: UnitOfWork, webhookId: string, id: string): DeliveryRecord | undefined {
    const record = this.staged.get(uow.batch)?.get(id) ?? this.pending.get(webhookId)?.get(id);
    return record?.status === 'pending' ? { ...record } : undefined;
  }

  /** The delivery as the unit of work sees it (a copy), or undefined. */
  async getIn(uow: UnitOfWork, id: string): Promise<DeliveryRecord | undefined> {
    const staged = this.staged.get(uow.batch)?.get(id);
    if (staged) return { ...staged };
    const [row] = await uow.tx.all(`SELECT * FROM (${CURRENT}) WHERE id = $id`, { id, hook: null });
    return row ? fromRow(row) : undefined;
  }

  /** Forgets the pending deliveries of a deleted endpoint once its deletion commits. */
  dropWebhook(uow: UnitOfWork, webhookId: string): void {
    uow.afterCommit(() => this.pending.delete(webhookId));
  }

  /** A page of an endpoint's deliveries, newest first, one more than `limit` when more follow. */
  async page(query: {
    webhookId: string;
    status?: DeliveryStatus | undefined;
    beforeSeq?: number | undefined;
    limit: number;
  }): Promise<DeliveryRecord[]> {
    const rows = await this.db.read(
      `SELECT * FROM (${CURRENT})
       WHERE ($status IS NULL OR status = $status) AND ($before IS NULL OR seq < $before)
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

  /** Appends the delivery's state as it is now, with the transaction's other changes, before it commits. */
  update(uow: UnitOfWork, d: DeliveryRecord): void {
    let staged = this.staged.get(uow.batch);
    if (!staged) {
      staged = new Map();
      this.staged.set(uow.batch, staged);
    }
    const copy = { ...d, version: d.version + 1 };
    staged.set(d.id, copy);
    const all = staged;
    uow.beforeCommit('webhook delivery states', (tx) =>
      tx.runPrepared(
        `INSERT INTO webhook_delivery_states
         SELECT x.r.id, x.r.webhook_id, x.r.version, x.r.status, x.r.attempts, ${timestampOf('x.r.next')},
                ${timestampOf('x.r.last')}, x.r.response_status, x.r.response_body, x.r.error, ${timestampOf('x.r.delivered')}
         FROM (SELECT unnest(from_json($rows::JSON, '${ROW_SHAPE}')) AS r) AS x`,
        { rows: JSON.stringify([...all.values()].map(rowOf)) },
      ),
    );
    uow.afterCommit(() => this.index(copy));
  }

  /** Keeps the committed pending index in step with a delivery's committed state. */
  private index(d: DeliveryRecord): void {
    let rows = this.pending.get(d.webhookId);
    if (d.status !== 'pending') {
      rows?.delete(d.id);
      if (rows?.size === 0) this.pending.delete(d.webhookId);
      return;
    }
    if (!rows) {
      rows = new Map();
      this.pending.set(d.webhookId, rows);
    }
    rows.set(d.id, d);
  }
}

function rowOf(d: DeliveryRecord) {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    version: d.version,
    status: d.status,
    attempts: d.attempts,
    next: d.nextAttemptAt,
    last: d.lastAttemptAt,
    response_status: d.responseStatus,
    response_body: d.responseBody,
    error: d.lastError,
    delivered: d.deliveredAt,
  };
}

function queued(webhookId: string, id: string, seq: number, event: QueuedEvent, now: number): DeliveryRecord {
  return {
    id,
    seq,
    webhookId,
    eventId: event.id,
    eventType: event.type,
    payload: event.payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatus: null,
    responseBody: null,
    lastError: null,
    createdAt: now,
    deliveredAt: null,
    version: 0,
  };
}

/** A delivery of the `CURRENT` query (times in epoch ms), as its record. */
const deliveryRowSchema = z
  .object({
    id: z.string(),
    seq: bigintColumn,
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: webhookEventTypeSchema,
    payload: z.string(),
    status: deliveryStatusSchema,
    attempts: z.number(),
    next_ms: bigintColumn.nullable(),
    last_ms: bigintColumn.nullable(),
    response_status: z.number().nullable(),
    response_body: z.string().nullable(),
    last_error: z.string().nullable(),
    created_ms: bigintColumn,
    delivered_ms: bigintColumn.nullable(),
    version: z.number(),
  })
  .transform(
    (r): DeliveryRecord => ({
      id: r.id,
      seq: r.seq,
      webhookId: r.webhook_id,
      eventId: r.event_id,
      eventType: r.event_type,
      payload: r.payload,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_ms,
      lastAttemptAt: r.last_ms,
      responseStatus: r.response_status,
      responseBody: r.response_body,
      lastError: r.last_error,
      createdAt: r.created_ms,
      deliveredAt: r.delivered_ms,
      version: r.version,
    }),
  );

function fromRow(row: unknown): DeliveryRecord {
  return parseRow(deliveryRowSchema, row, 'webhook_deliveries');
}
