/** Orders and their items in DuckDB: inserts and updates inside a unit of work, reads of committed rows. */
import type { OrderItemStatus, OrderStatus, ReturnReason } from '../../contract/order.js';
import type { Database } from '../../shared/database.js';
import { readNextDue } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { accountPageSql, type PageKeyset } from '../http/change-feed.js';
import { type ItemRecord, type OrderRecord, orderJson } from './order-record.js';
import type { OrderWrittenListener } from './ports.js';

const ORDER_COLUMNS = `id, seq, account_id, app_id, kind, steam_id, custom_id, status, charged_cents, settled_paid_cents,
  refund_cents, refund_partial, epoch_ms(refunded_at) AS refunded_ms, delivery, expected_minutes,
  epoch_ms(created_at) AS created_ms, epoch_ms(updated_at) AS updated_ms`;

const ITEM_COLUMNS = `order_id, position, listing_id, listing, market_hash_name, price_cents, listing_delivery, status,
  epoch_ms(tradable_at) AS tradable_ms, return_reason, offer_id, epoch_ms(offer_finished_at) AS finished_ms,
  epoch_ms(send_at) AS send_ms, epoch_ms(give_up_at) AS give_up_ms`;

/** Orders still moving (the others have ended). */
const LIVE = `o.status IN ('pending', 'delivering', 'hold')`;
/** An item trading itself sends and has not sent yet. */
const UNSENT = `i.offer_id IS NULL AND i.status = 'delivering'`;

/** A filter of an account's orders, newest first (or oldest change first after a change position). */
export interface OrderPageQuery extends PageKeyset {
  accountId: string;
  appId: number;
  status?: OrderStatus | undefined;
  /** Only orders older than this sequence number (the cursor). */
  beforeSeq?: number | undefined;
  limit: number;
}

/** Durable orders. */
export class OrderStore {
  private nextSeq = 1;
  private readonly listeners: OrderWrittenListener[] = [];

  constructor(private readonly db: Database) {}

  /** Adds a listener told of every insert and update, inside the writing unit of work. */
  onWritten(listener: OrderWrittenListener): void {
    this.listeners.push(listener);
  }

  /** Reads the next order sequence number. */
  async load(): Promise<void> {
    const [row] = await this.db.all<{ seq: number | null }>('SELECT max(seq) AS seq FROM orders');
    this.nextSeq = Number(row?.seq ?? 0) + 1;
  }

  /** Takes the next sequence number (orders are created one unit of work at a time). */
  takeSeq(): number {
    return this.nextSeq++;
  }

  /**
   * Inserts a new order and its items, with the receipt stored for its key (when it has one).
   * (`response_status`, left from when the row stored a whole response, stays empty.)
   */
  async insert(
    uow: UnitOfWork,
    order: OrderRecord,
    keyed: { fingerprint: string; receipt: string } | null,
  ): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO orders VALUES ($id, $seq, $account, $app, $kind, $steam, $custom, $status, $charged, $settled_paid,
         NULL, NULL, NULL, $delivery, $expected, make_timestamp($created * 1000), make_timestamp($created * 1000),
         $hash, NULL, $receipt)`,
      {
        hash: keyed?.fingerprint ?? null,
        receipt: keyed?.receipt ?? null,
        id: order.id,
        seq: order.seq,
        account: order.accountId,
        app: order.appId,
        kind: order.kind,
        steam: order.steamId,
        custom: order.customId,
        status: order.status,
        charged: order.chargedCents,
        settled_paid: order.settledPaidCents,
        delivery: order.delivery,
        expected: order.expectedMinutes,
        created: order.createdAt,
      },
    );
    for (const item of order.items) await this.insertItem(uow, order.id, item);
    await this.written(uow, order);
  }

  /** Writes the order's status, refund and items as they are now. */
  async update(uow: UnitOfWork, order: OrderRecord): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE orders SET status = $status, refund_cents = $refund, refund_partial = $partial,
         refunded_at = CASE WHEN $refunded IS NULL THEN NULL ELSE make_timestamp($refunded * 1000) END,
         updated_at = make_timestamp($updated * 1000)
       WHERE id = $id`,
      {
        id: order.id,
        status: order.status,
        refund: order.refundCents,
        partial: order.refundPartial,
        refunded: order.refundedAt,
        updated: order.updatedAt,
      },
    );
    await uow.tx.runPrepared('DELETE FROM order_items WHERE order_id = $id', { id: order.id });
    for (const item of order.items) await this.insertItem(uow, order.id, item);
    await this.written(uow, order);
  }

  private async written(uow: UnitOfWork, order: OrderRecord): Promise<void> {
    if (this.listeners.length === 0) return;
    const now = uow.now;
    const written = {
      id: order.id,
      accountId: order.accountId,
      render: () => JSON.stringify(orderJson(order, now)),
    };
    for (const listener of this.listeners) await listener(uow, written);
  }

  /** The order with this id (committed), or undefined. */
  async get(id: string, db: Pick<Database, 'read'> = this.db): Promise<OrderRecord | undefined> {
    const [row] = await db.read(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $id`, { id });
    return row ? (await this.withItems([row], db))[0] : undefined;
  }

  /** The order as the unit of work sees it (its own writes included). */
  async getIn(uow: UnitOfWork, id: string): Promise<OrderRecord | undefined> {
    return this.get(id, { read: (sql, params) => uow.tx.all(sql, params) });
  }

  /** The account's order created with this custom_id in a game, or undefined. */
  async byCustomId(accountId: string, appId: number, customId: string): Promise<OrderRecord | undefined> {
    const rows = await this.db.read(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE account_id = $account AND app_id = $app AND custom_id = $custom`,
      { account: accountId, app: appId, custom: customId },
    );
    return (await this.withItems(rows, this.db))[0];
  }

  /** A page of an account's orders, newest first, one more than `limit` when more follow. */
  async page(query: OrderPageQuery): Promise<OrderRecord[]> {
    const app = { where: 'app_id = $app', params: { app: query.appId } };
    const { sql, params } = accountPageSql(`SELECT ${ORDER_COLUMNS} FROM orders`, query, app);
    const rows = await this.db.read(sql, params);
    return this.withItems(rows, this.db);
  }

  /**
   * Live orders with work due by `now`: an unsent item whose send or give-up time has come, or a
   * claim window that is over (`due`); or a held order past its hold and grace (claimable: work
   * only under autoclaim). The claim window is the order's (from its latest lock), so held items'
   * own give-up times are not read.
   */
  async dueOrders(
    now: number,
    window: { graceMs: number; claimMs: number },
  ): Promise<{ id: string; accountId: string; due: boolean }[]> {
    const rows = await this.db.read<{ id: string; account_id: string; due: boolean }>(
      `SELECT o.id, o.account_id,
              max(i.tradable_at) FILTER (WHERE i.status = 'hold') AS hold_until,
              coalesce(bool_or(${UNSENT} AND (i.send_at <= make_timestamp($now * 1000)
                                              OR i.give_up_at <= make_timestamp($now * 1000))), false)
                OR coalesce(hold_until <= make_timestamp(($now - $grace - $claim) * 1000), false) AS due
       FROM orders o JOIN order_items i ON i.order_id = o.id
       WHERE ${LIVE}
       GROUP BY o.id, o.account_id, o.status
       HAVING due OR (o.status = 'hold' AND hold_until <= make_timestamp(($now - $grace) * 1000))`,
      { now, grace: window.graceMs, claim: window.claimMs },
    );
    return rows.map((r) => ({ id: String(r.id), accountId: String(r.account_id), due: Boolean(r.due) }));
  }

  /** The earliest time from `from` on at which a live order has work (as {@link dueOrders} finds it), or null. */
  nextDueFrom(from: number, window: { graceMs: number; claimMs: number }): Promise<number | null> {
    return readNextDue(
      this.db,
      `SELECT min(due) AS due FROM (
         SELECT unnest([i.send_at, i.give_up_at]) AS due
         FROM orders o JOIN order_items i ON i.order_id = o.id WHERE ${LIVE} AND ${UNSENT}
         UNION ALL
         SELECT unnest([hold_until + to_milliseconds($grace), hold_until + to_milliseconds($grace + $claim)])
         FROM (SELECT max(i.tradable_at) AS hold_until FROM orders o JOIN order_items i ON i.order_id = o.id
               WHERE ${LIVE} AND i.status = 'hold' GROUP BY o.id)
       ) WHERE due >= make_timestamp($from * 1000)`,
      { from, grace: window.graceMs, claim: window.claimMs },
    );
  }

  /** Cents charged and not refunded over every order of the account (for the verification threshold). */
  async netPurchasedCents(uow: UnitOfWork, accountId: string): Promise<number> {
    const [row] = await uow.tx.all<{ total: bigint | number | null }>(
      'SELECT sum(charged_cents - coalesce(refund_cents, 0)) AS total FROM orders WHERE account_id = $account',
      { account: accountId },
    );
    return Number(row?.total ?? 0);
  }

  private async insertItem(uow: UnitOfWork, orderId: string, item: ItemRecord): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO order_items VALUES ($order, $position, $listing_id, $listing, $name, $price, $delivery, $status,
         ${tsExpr('tradable')}, $reason, $offer, ${tsExpr('finished')}, ${tsExpr('send')}, ${tsExpr('give_up')})`,
      {
        order: orderId,
        position: item.position,
        listing_id: item.listingId,
        listing: item.listingJson,
        name: item.marketHashName,
        price: item.priceCents,
        delivery: item.listingDelivery,
        status: item.status,
        tradable: item.tradableAt,
        reason: item.returnReason,
        offer: item.offerId,
        finished: item.offerFinishedAt,
        send: item.sendAt,
        give_up: item.giveUpAt,
      },
    );
  }

  private async withItems(
    rows: Record<string, unknown>[],
    db: Pick<Database, 'read'>,
  ): Promise<OrderRecord[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => String(r.id));
    const items = await db.read(
      `SELECT ${ITEM_COLUMNS} FROM order_items WHERE list_contains($ids::VARCHAR[], order_id) ORDER BY order_id, position`,
      { ids: JSON.stringify(ids) },
    );
    const byOrder = new Map<string, ItemRecord[]>();
    for (const item of items) {
      const list = byOrder.get(String(item.order_id)) ?? [];
      list.push(itemFromRow(item));
      byOrder.set(String(item.order_id), list);
    }
    return rows.map((r) => orderFromRow(r, byOrder.get(String(r.id)) ?? []));
  }
}

function tsExpr(param: string): string {
  return `CASE WHEN $${param} IS NULL THEN NULL ELSE make_timestamp(CAST($${param} AS BIGINT) * 1000) END`;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function orderFromRow(r: Record<string, unknown>, items: ItemRecord[]): OrderRecord {
  return {
    id: String(r.id),
    seq: Number(r.seq),
    accountId: String(r.account_id),
    appId: Number(r.app_id),
    kind: r.kind === 'market_buy' ? 'market_buy' : 'order',
    steamId: r.steam_id === null ? null : String(r.steam_id),
    customId: r.custom_id === null ? null : String(r.custom_id),
    status: r.status as OrderStatus,
    chargedCents: Number(r.charged_cents),
    settledPaidCents: Number(r.settled_paid_cents),
    refundCents: num(r.refund_cents),
    refundPartial: r.refund_partial === null ? null : Boolean(r.refund_partial),
    refundedAt: num(r.refunded_ms),
    delivery: r.delivery as OrderRecord['delivery'],
    expectedMinutes: num(r.expected_minutes),
    createdAt: Number(r.created_ms),
    updatedAt: Number(r.updated_ms),
    items,
  };
}

function itemFromRow(r: Record<string, unknown>): ItemRecord {
  return {
    position: Number(r.position),
    listingId: String(r.listing_id),
    listingJson: String(r.listing),
    marketHashName: String(r.market_hash_name),
    priceCents: Number(r.price_cents),
    listingDelivery: r.listing_delivery as ItemRecord['listingDelivery'],
    status: r.status as OrderItemStatus,
    tradableAt: num(r.tradable_ms),
    returnReason: (r.return_reason ?? null) as ReturnReason | null,
    offerId: r.offer_id === null ? null : String(r.offer_id),
    offerFinishedAt: num(r.finished_ms),
    sendAt: num(r.send_ms),
    giveUpAt: num(r.give_up_ms),
  };
}
