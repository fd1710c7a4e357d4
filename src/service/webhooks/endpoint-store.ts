/**
 * Webhook endpoints: durable rows in DuckDB written inside units of work, and a mirror in memory
 * that follows each commit (the dispatcher and the order writes read it without a query). Units
 * of one transaction see each other's changes through a working copy kept per transaction.
 */
import { z } from 'zod';
import type { Database } from '../../shared/database.js';
import { bigintColumn, jsonColumn, parseRows } from '../../shared/row-schema.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { timestampOf } from './sql-values.js';

/** An endpoint as the service holds it (epoch ms). */
export interface EndpointRecord {
  id: string;
  seq: number;
  accountId: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string;
  secret: string;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  createdAt: number;
}

const COLUMNS = `id, seq, account_id, url, events, enabled, description, secret, epoch_ms(last_success_at) AS success_ms,
  epoch_ms(last_failure_at) AS failure_ms, last_error, consecutive_failures, epoch_ms(created_at) AS created_ms`;

const ROW_SHAPE = JSON.stringify([
  {
    id: 'VARCHAR',
    url: 'VARCHAR',
    events: 'VARCHAR',
    enabled: 'BOOLEAN',
    description: 'VARCHAR',
    secret: 'VARCHAR',
    success: 'BIGINT',
    failure: 'BIGINT',
    error: 'VARCHAR',
    failures: 'INTEGER',
  },
]);

/** Durable endpoints with their committed mirror. */
export class EndpointStore {
  private readonly committed = new Map<string, EndpointRecord>();
  /** Changes of the transaction in progress, by its batch: a record, or null once deleted. */
  private readonly working = new WeakMap<object, Map<string, EndpointRecord | null>>();
  private nextSeq = 1;

  constructor(private readonly db: Database) {}

  /** Loads every endpoint. */
  async load(): Promise<void> {
    const rows = await this.db.read(`SELECT ${COLUMNS} FROM webhook_endpoints ORDER BY seq`);
    for (const record of parseRows(endpointRowSchema, rows, 'webhook_endpoints')) {
      this.committed.set(record.id, record);
      this.nextSeq = Math.max(this.nextSeq, record.seq + 1);
    }
  }

  /** The committed endpoint (a copy), or undefined. */
  get(id: string): EndpointRecord | undefined {
    const record = this.committed.get(id);
    return record ? { ...record, events: [...record.events] } : undefined;
  }

  /** The account's committed endpoints, oldest first. */
  ofAccount(accountId: string): EndpointRecord[] {
    return [...this.committed.values()]
      .filter((e) => e.accountId === accountId)
      .sort((a, b) => a.seq - b.seq)
      .map((e) => ({ ...e, events: [...e.events] }));
  }

  /** The endpoint as the unit of work sees it (earlier units of its transaction included); a copy to change. */
  getIn(uow: UnitOfWork, id: string): EndpointRecord | undefined {
    const changed = this.working.get(uow.batch)?.get(id);
    if (changed === null) return undefined;
    const record = changed ?? this.committed.get(id);
    return record ? { ...record, events: [...record.events] } : undefined;
  }

  /** The account's endpoints as the unit of work sees them. */
  ofAccountIn(uow: UnitOfWork, accountId: string): EndpointRecord[] {
    const ids = new Set([...this.committed.keys(), ...(this.working.get(uow.batch)?.keys() ?? [])]);
    return [...ids]
      .flatMap((id) => this.getIn(uow, id) ?? [])
      .filter((e) => e.accountId === accountId)
      .sort((a, b) => a.seq - b.seq);
  }

  /** Takes the next creation sequence number. */
  takeSeq(): number {
    return this.nextSeq++;
  }

  /** Inserts a new endpoint. */
  async insert(uow: UnitOfWork, record: EndpointRecord): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO webhook_endpoints VALUES ($id, $seq, $account, $url, $events, $enabled, $description, $secret,
         ${timestampOf('$success')}, ${timestampOf('$failure')}, $error, $failures, make_timestamp(CAST($created AS BIGINT) * 1000))`,
      { ...params(record), seq: record.seq, account: record.accountId, created: record.createdAt },
    );
    this.stage(uow, record.id, record);
  }

  /** Writes the endpoint's changeable fields as they are now, with the transaction's other endpoints, before it commits. */
  update(uow: UnitOfWork, record: EndpointRecord): void {
    this.stage(uow, record.id, record);
    const changes = this.working.get(uow.batch) as Map<string, EndpointRecord | null>;
    uow.beforeCommit('webhook endpoints', (tx) =>
      tx.runPrepared(
        `UPDATE webhook_endpoints AS e SET url = x.r.url, events = x.r.events, enabled = x.r.enabled,
           description = x.r.description, secret = x.r.secret, last_success_at = ${timestampOf('x.r.success')},
           last_failure_at = ${timestampOf('x.r.failure')}, last_error = x.r.error, consecutive_failures = x.r.failures
         FROM (SELECT unnest(from_json($rows::JSON, '${ROW_SHAPE}')) AS r) AS x
         WHERE e.id = x.r.id`,
        { rows: JSON.stringify([...changes.values()].flatMap((e) => (e ? [params(e)] : []))) },
      ),
    );
  }

  /** Deletes the endpoint and every delivery of it. */
  async remove(uow: UnitOfWork, id: string): Promise<void> {
    await uow.tx.runPrepared('DELETE FROM webhook_delivery_states WHERE webhook_id = $id', { id });
    await uow.tx.runPrepared('DELETE FROM webhook_deliveries WHERE webhook_id = $id', { id });
    await uow.tx.runPrepared('DELETE FROM webhook_endpoints WHERE id = $id', { id });
    this.stage(uow, id, null);
  }

  private stage(uow: UnitOfWork, id: string, record: EndpointRecord | null): void {
    let changes = this.working.get(uow.batch);
    if (!changes) {
      changes = new Map();
      this.working.set(uow.batch, changes);
    }
    const copy = record && { ...record, events: [...record.events] };
    changes.set(id, copy);
    uow.afterCommit(() => {
      if (copy) this.committed.set(id, copy);
      else this.committed.delete(id);
    });
  }
}

function params(record: EndpointRecord) {
  return {
    id: record.id,
    url: record.url,
    events: JSON.stringify(record.events),
    enabled: record.enabled,
    description: record.description,
    secret: record.secret,
    success: record.lastSuccessAt,
    failure: record.lastFailureAt,
    error: record.lastError,
    failures: record.consecutiveFailures,
  };
}

/** A row of `webhook_endpoints` as `COLUMNS` reads it (times in epoch ms), as its record. */
const endpointRowSchema = z
  .object({
    id: z.string(),
    seq: bigintColumn,
    account_id: z.string(),
    url: z.string(),
    events: jsonColumn<string[]>(),
    enabled: z.boolean(),
    description: z.string(),
    secret: z.string(),
    success_ms: bigintColumn.nullable(),
    failure_ms: bigintColumn.nullable(),
    last_error: z.string().nullable(),
    consecutive_failures: z.number(),
    created_ms: bigintColumn,
  })
  .transform(
    (r): EndpointRecord => ({
      id: r.id,
      seq: r.seq,
      accountId: r.account_id,
      url: r.url,
      events: r.events,
      enabled: r.enabled,
      description: r.description,
      secret: r.secret,
      lastSuccessAt: r.success_ms,
      lastFailureAt: r.failure_ms,
      lastError: r.last_error,
      consecutiveFailures: r.consecutive_failures,
      createdAt: r.created_ms,
    }),
  );
