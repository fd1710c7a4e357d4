/** P2P listings in DuckDB: writes and reads in the caller's unit of work, committed reads for pages and due work. */
import { z } from 'zod';
import { P2P_LISTING_STATUSES, type P2PListingStatus } from '../../contract/p2p.js';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRow } from '../../shared/row-schema.js';
import { readNextDue } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { accountPageSql, type PageKeyset } from '../http/change-feed.js';
import type { ListingRecord } from './listing-record.js';
import { LISTING_STATES, LIVE_STATUSES } from './listing-states.js';

const COLUMNS = `id, seq, account_id, steam_id, asset_id, asset_revision, market_hash_name, listing, status, price_cents,
  commission_cents, needs_resync, order_id, item_key, buyer_steam_id, offer_id, epoch_ms(due_at) AS due_ms, due_event,
  end_reason, epoch_ms(created_at) AS created_ms, epoch_ms(updated_at) AS updated_ms`;

const LIVE = LIVE_STATUSES.map((s) => `'${s}'`).join(', ');

/** The states /v1 answers: an ended listing (sold, cancelled, delisted) is in no page. */
const ANSWERED = P2P_LISTING_STATUSES.map((s) => `'${s}'`).join(', ');

/** A page query of a seller's listings, newest first. */
export interface ListingPageQuery extends PageKeyset {
  accountId: string;
  status?: P2PListingStatus | undefined;
  /** Only listings older than this sequence number (the cursor). */
  beforeSeq?: number | undefined;
  limit: number;
}

/** Durable P2P listings. */
export class ListingStore {
  private nextSeq = 1;

  constructor(private readonly db: Database) {}

  /** Reads the next sequence number. */
  async load(): Promise<void> {
    const [row] = await this.db.all<{ seq: bigint | null }>('SELECT max(seq) AS seq FROM p2p_listings');
    this.nextSeq = Number(row?.seq ?? 0) + 1;
  }

  /** Takes the next sequence number. */
  takeSeq(): number {
    return this.nextSeq++;
  }

  /** Inserts a new listing. */
  async insert(uow: UnitOfWork, record: ListingRecord): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO p2p_listings (id, seq, account_id, steam_id, asset_id, asset_revision, market_hash_name, listing,
         status, price_cents, commission_cents, needs_resync, created_at, updated_at)
       VALUES ($id, $seq, $account, $steam, $asset, $revision, $name, $listing, $status, $price, $commission, false,
         make_timestamp($at * 1000), make_timestamp($at * 1000))`,
      {
        id: record.id,
        seq: record.seq,
        account: record.accountId,
        steam: record.steamId,
        asset: record.assetId,
        revision: record.assetRevision,
        name: record.marketHashName,
        listing: record.listingJson,
        status: record.status,
        price: record.priceCents,
        commission: record.commissionCents,
        at: record.createdAt,
      },
    );
  }

  /** Writes the listing's mutable fields as they are now. */
  async update(uow: UnitOfWork, record: ListingRecord): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE p2p_listings SET listing = $listing, status = $status, price_cents = $price, commission_cents = $commission,
         needs_resync = $resync, order_id = $order, item_key = $item, buyer_steam_id = $buyer, offer_id = $offer,
         due_at = CASE WHEN $due IS NULL THEN NULL ELSE make_timestamp($due * 1000) END, due_event = $event,
         end_reason = $reason, updated_at = make_timestamp($updated * 1000)
       WHERE id = $id`,
      {
        id: record.id,
        listing: record.listingJson,
        status: record.status,
        price: record.priceCents,
        commission: record.commissionCents,
        resync: record.needsResync,
        order: record.orderId,
        item: record.itemKey,
        buyer: record.buyerSteamId,
        offer: record.offerId,
        due: record.due?.at ?? null,
        event: record.due?.event ?? null,
        reason: record.endReason,
        updated: record.updatedAt,
      },
    );
  }

  /** A listing as the unit of work sees it. */
  async getIn(uow: UnitOfWork, id: string): Promise<ListingRecord | undefined> {
    return this.oneIn(uow, 'id = $id', { id });
  }

  /** The listing the seller's offer delivers, as the unit of work sees it. */
  async byOfferIn(uow: UnitOfWork, offerId: string): Promise<ListingRecord | undefined> {
    return this.oneIn(uow, 'offer_id = $offer', { offer: offerId });
  }

  /** The listing that holds a copy (on the shelf or mid-sale), as the unit of work sees it. */
  async liveByAssetIn(uow: UnitOfWork, assetId: string): Promise<ListingRecord | undefined> {
    return this.oneIn(uow, `asset_id = $asset AND status IN (${LIVE})`, { asset: assetId });
  }

  /** The committed listings of a seller that hold a copy, by asset id. */
  async liveOf(accountId: string): Promise<Map<string, ListingRecord>> {
    const rows = await this.db.read(
      `SELECT ${COLUMNS} FROM p2p_listings WHERE account_id = $account AND status IN (${LIVE})`,
      { account: accountId },
    );
    return new Map(rows.map(recordOf).map((record) => [record.assetId, record]));
  }

  /** A committed listing. */
  async get(id: string): Promise<ListingRecord | undefined> {
    const rows = await this.db.read(`SELECT ${COLUMNS} FROM p2p_listings WHERE id = $id`, { id });
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  /**
   * One page of a seller's listings that have not ended, newest first (or oldest change first),
   * one row past the page to tell whether more follow.
   */
  async page(query: ListingPageQuery): Promise<ListingRecord[]> {
    const { sql, params } = accountPageSql(`SELECT ${COLUMNS} FROM p2p_listings`, query, {
      where: `status IN (${ANSWERED})`,
      params: {},
    });
    return (await this.db.read(sql, params)).map(recordOf);
  }

  /** Ids of committed listings whose next timed step is due by `now`, earliest first. */
  async dueBy(now: number): Promise<string[]> {
    const rows = await this.db.read<{ id: string }>(
      `SELECT id FROM p2p_listings WHERE due_at <= make_timestamp($now * 1000) ORDER BY due_at, seq`,
      { now },
    );
    return rows.map((row) => row.id);
  }

  /** The earliest step of a P2P listing due from `from` on, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return readNextDue(
      this.db,
      'SELECT min(due_at) AS due FROM p2p_listings WHERE due_at >= make_timestamp($from * 1000)',
      { from },
    );
  }

  private async oneIn(
    uow: UnitOfWork,
    where: string,
    params: Record<string, string>,
  ): Promise<ListingRecord | undefined> {
    const rows = await uow.tx.all(`SELECT ${COLUMNS} FROM p2p_listings WHERE ${where} LIMIT 1`, params);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }
}

/** A listing as `COLUMNS` reads it (times in epoch ms), as its record. */
const listingRowSchema = z
  .object({
    id: z.string(),
    seq: bigintColumn,
    account_id: z.string(),
    steam_id: z.string(),
    asset_id: z.string(),
    asset_revision: z.string(),
    market_hash_name: z.string(),
    listing: z.string(),
    status: z.enum(LISTING_STATES),
    price_cents: bigintColumn,
    commission_cents: bigintColumn,
    needs_resync: z.boolean(),
    order_id: z.string().nullable(),
    item_key: z.string().nullable(),
    buyer_steam_id: z.string().nullable(),
    offer_id: z.string().nullable(),
    due_ms: bigintColumn.nullable(),
    due_event: z.enum(['send', 'release']).nullable(),
    end_reason: z.string().nullable(),
    created_ms: bigintColumn,
    updated_ms: bigintColumn,
  })
  .transform(
    (row): ListingRecord => ({
      id: row.id,
      seq: row.seq,
      accountId: row.account_id,
      steamId: row.steam_id,
      assetId: row.asset_id,
      assetRevision: row.asset_revision,
      marketHashName: row.market_hash_name,
      listingJson: row.listing,
      status: row.status,
      priceCents: row.price_cents,
      commissionCents: row.commission_cents,
      needsResync: row.needs_resync,
      orderId: row.order_id,
      itemKey: row.item_key,
      buyerSteamId: row.buyer_steam_id,
      offerId: row.offer_id,
      due: row.due_ms === null || row.due_event === null ? null : { at: row.due_ms, event: row.due_event },
      endReason: row.end_reason,
      createdAt: row.created_ms,
      updatedAt: row.updated_ms,
    }),
  );

function recordOf(row: unknown): ListingRecord {
  return parseRow(listingRowSchema, row, 'p2p_listings');
}
