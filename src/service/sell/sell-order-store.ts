/** Sell orders in DuckDB: writes and consistent reads in the caller's unit of work, committed reads for pages and due work. */
import { z } from 'zod';
import { type SellOrderStatus, sellOrderStatusSchema } from '../../contract/sell.js';
import type { Database } from '../../shared/database.js';
import { bigintColumn, jsonColumn, parseRow } from '../../shared/row-schema.js';
import { readNextDue } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { accountPageSql, type ChangePosition } from '../http/change-feed.js';
import type { SellOrderRecord } from './sell-order-record.js';

const COLUMNS = `id, seq, account_id, external_id, quote_id, app_id, steam_id, status, min_total_cents, failure_reason,
  items, offers, credited_cents, settled_cents, epoch_ms(send_at) AS send_ms, epoch_ms(settles_at) AS settles_ms,
  epoch_ms(created_at) AS created_ms, epoch_ms(updated_at) AS updated_ms`;

/** A sell order to create: everything but its sequence number. */
export type NewSellOrder = Omit<SellOrderRecord, 'seq'>;

/** Reads and writes the sell_orders table. */
export class SellOrderStore {
  constructor(private readonly db: Database) {}

  /** Inserts a new order in the unit of work; returns it with its sequence number. */
  async insert(uow: UnitOfWork, order: NewSellOrder): Promise<SellOrderRecord> {
    const [row] = await uow.tx.all<{ seq: bigint }>(`SELECT nextval('sell_order_seq') AS seq`);
    const stored: SellOrderRecord = { ...order, seq: Number(row?.seq) };
    await uow.tx.runPrepared(
      `INSERT INTO sell_orders (id, seq, account_id, external_id, quote_id, app_id, steam_id, status, min_total_cents,
         failure_reason, items, offers, credited_cents, settled_cents, send_at, settles_at, created_at, updated_at)
       VALUES ($id, $seq, $account, $external, $quote, $app, $steam, $status, $min_total, $reason, $items, $offers,
         $credited, $settled, ${stamp('send')}, ${stamp('settles')}, make_timestamp($created * 1000),
         make_timestamp($updated * 1000))`,
      {
        ...changingValues(stored),
        seq: stored.seq,
        account: stored.accountId,
        external: stored.externalId,
        quote: stored.quoteId,
        app: stored.appId,
        steam: stored.steamId,
        min_total: stored.minTotalCents,
        created: stored.createdAt,
      },
    );
    return stored;
  }

  /** Stores what changes over an order's life (status, items, offers, amounts, due times). */
  async update(uow: UnitOfWork, order: SellOrderRecord): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE sell_orders SET status = $status, failure_reason = $reason, items = $items, offers = $offers,
         credited_cents = $credited, settled_cents = $settled, send_at = ${stamp('send')},
         settles_at = ${stamp('settles')}, updated_at = make_timestamp($updated * 1000)
       WHERE id = $id`,
      changingValues(order),
    );
  }

  /** The order as the unit of work sees it, or undefined. */
  async getIn(uow: UnitOfWork, id: string): Promise<SellOrderRecord | undefined> {
    return first(await uow.tx.all(`SELECT ${COLUMNS} FROM sell_orders WHERE id = $id`, { id }));
  }

  /** The account's order made with an external_id, as the unit of work sees it. */
  async byExternalIdIn(
    uow: UnitOfWork,
    accountId: string,
    externalId: string,
  ): Promise<SellOrderRecord | undefined> {
    return first(
      await uow.tx.all(
        `SELECT ${COLUMNS} FROM sell_orders WHERE account_id = $account AND external_id = $external`,
        { account: accountId, external: externalId },
      ),
    );
  }

  /** The order a quote became, as the unit of work sees it. */
  async byQuoteIn(uow: UnitOfWork, quoteId: string): Promise<SellOrderRecord | undefined> {
    return first(
      await uow.tx.all(`SELECT ${COLUMNS} FROM sell_orders WHERE quote_id = $quote`, { quote: quoteId }),
    );
  }

  /** Asset ids a seller's pending orders hold for their offers, as the unit of work sees them. */
  async pendingAssetIdsIn(uow: UnitOfWork, steamId: string): Promise<Set<string>> {
    const rows = await uow.tx.all(
      `SELECT ${COLUMNS} FROM sell_orders WHERE steam_id = $steam AND status = 'pending'`,
      { steam: steamId },
    );
    return new Set(
      rows
        .map(recordOf)
        .flatMap((order) => order.items.filter((i) => i.status === 'pending').map((i) => i.assetId)),
    );
  }

  /** The committed order, or undefined. */
  async get(id: string): Promise<SellOrderRecord | undefined> {
    return first(await this.db.read(`SELECT ${COLUMNS} FROM sell_orders WHERE id = $id`, { id }));
  }

  /** A page of an account's committed orders, newest first: up to `limit + 1` rows (the extra says more exist). */
  async page(query: {
    accountId: string;
    status: SellOrderStatus | undefined;
    beforeSeq: number | undefined;
    after?: ChangePosition | undefined;
    limit: number;
  }): Promise<SellOrderRecord[]> {
    const { sql, params } = accountPageSql(`SELECT ${COLUMNS} FROM sell_orders`, query);
    return (await this.db.read(sql, params)).map(recordOf);
  }

  /** Cents the account's received orders will pay once their trade protection is over (committed). */
  async creditInProtection(accountId: string): Promise<number> {
    const [row] = await this.db.read<{ cents: bigint | number | null }>(
      `SELECT sum(credited_cents) AS cents FROM sell_orders WHERE account_id = $account AND status = 'received'`,
      { account: accountId },
    );
    return Number(row?.cents ?? 0);
  }

  /** The earliest time from `from` on at which an order has work due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return readNextDue(
      this.db,
      `SELECT min(due) AS due FROM (${DUE_TIMES}) WHERE due >= make_timestamp($from * 1000)`,
      { from },
    );
  }

  /** Ids of committed orders with work due by `now`: offers to send, or a trade protection that is over. */
  async dueBy(now: number): Promise<string[]> {
    const rows = await this.db.read<{ id: string }>(
      `SELECT id FROM sell_orders
       WHERE (status = 'pending' AND send_at <= make_timestamp($now * 1000))
          OR (status = 'received' AND settles_at < make_timestamp($now * 1000))
       ORDER BY seq`,
      { now },
    );
    return rows.map((row) => row.id);
  }
}

/** The first instant of each order's due work: sending at send_at, settling just after settles_at. */
const DUE_TIMES = `SELECT send_at AS due FROM sell_orders WHERE status = 'pending'
  UNION ALL SELECT settles_at + INTERVAL 1 MILLISECOND FROM sell_orders WHERE status = 'received'`;

function stamp(name: string): string {
  return `CASE WHEN $${name} IS NULL THEN NULL ELSE make_timestamp($${name} * 1000) END`;
}

function changingValues(order: SellOrderRecord) {
  return {
    id: order.id,
    status: order.status,
    reason: order.failureReason,
    items: JSON.stringify(order.items),
    offers: JSON.stringify(order.offers),
    credited: order.creditedCents,
    settled: order.settledCents,
    send: order.sendAt,
    settles: order.settlesAt,
    updated: order.updatedAt,
  };
}

function first(rows: readonly unknown[]): SellOrderRecord | undefined {
  return rows[0] ? recordOf(rows[0]) : undefined;
}

/** A row of `sell_orders` with its times in epoch ms, as its record (items and offers are the JSON it wrote). */
const sellOrderRowSchema = z
  .object({
    id: z.string(),
    seq: bigintColumn,
    account_id: z.string(),
    external_id: z.string().nullable(),
    quote_id: z.string(),
    app_id: z.number(),
    steam_id: z.string(),
    status: sellOrderStatusSchema,
    min_total_cents: bigintColumn.nullable(),
    failure_reason: z.string().nullable(),
    items: jsonColumn<SellOrderRecord['items']>(),
    offers: jsonColumn<SellOrderRecord['offers']>(),
    credited_cents: bigintColumn,
    settled_cents: bigintColumn,
    send_ms: bigintColumn.nullable(),
    settles_ms: bigintColumn.nullable(),
    created_ms: bigintColumn,
    updated_ms: bigintColumn,
  })
  .transform(
    (row): SellOrderRecord => ({
      id: row.id,
      seq: row.seq,
      accountId: row.account_id,
      externalId: row.external_id,
      quoteId: row.quote_id,
      appId: row.app_id,
      steamId: row.steam_id,
      status: row.status,
      minTotalCents: row.min_total_cents,
      failureReason: row.failure_reason,
      items: row.items,
      offers: row.offers,
      creditedCents: row.credited_cents,
      settledCents: row.settled_cents,
      sendAt: row.send_ms,
      settlesAt: row.settles_ms,
      createdAt: row.created_ms,
      updatedAt: row.updated_ms,
    }),
  );

function recordOf(row: unknown): SellOrderRecord {
  return parseRow(sellOrderRowSchema, row, 'sell_orders');
}
