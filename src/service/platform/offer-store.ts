/** Trade offers and their items in DuckDB: writes in the caller's unit of work, committed reads for views. */
import { z } from 'zod';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRow } from '../../shared/row-schema.js';
import { readNextDue } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import { OFFER_TRANSITIONS, type OfferOutcome, type OfferState } from './offer-states.js';
import type { OfferItem } from './offer-types.js';
import type { PlannedStep } from './user-behaviours.js';

/** An offer as stored; times in epoch ms. */
export interface OfferRecord {
  id: string;
  orderId: string;
  steamId: string;
  /** The user who sent it; null for the marketplace's bots. */
  senderSteamId: string | null;
  state: OfferState;
  sentAt: number;
  expiresAt: number;
  /** When it left `active`; null while active. */
  closedAt: number | null;
  /** The next timed step; null once the offer has left `active`. */
  due: PlannedStep | null;
}

const OFFER_COLUMNS = `id, order_id, steam_id, sender_steam_id, state, epoch_ms(sent_at) AS sent_ms,
  epoch_ms(expires_at) AS expires_ms, epoch_ms(closed_at) AS closed_ms, epoch_ms(due_at) AS due_ms, due_event`;

/** An offer to store: bots' (no sender) or a user's (each item names the sender's copy). */
export interface StoredOffer {
  orderId: string;
  steamId: string;
  senderSteamId: string | null;
  items: (OfferItem & { assetId?: string })[];
  /** When it was sent (epoch ms); the unit of work's time when left out. */
  sentAt?: number;
  /** Whose behaviour answers the offer when it is not the recipient's (a sender asked for their items). */
  answererSteamId?: string;
}

/** Reads and writes the platform_offers and platform_offer_items tables. */
export class OfferStore {
  constructor(private readonly db: Database) {}

  /** Inserts a new active offer with its items and its first timed step; returns its id. */
  async insert(
    uow: UnitOfWork,
    offer: StoredOffer,
    times: { sentAt: number; expiresAt: number; due: PlannedStep },
  ): Promise<string> {
    const [row] = await uow.tx.all<{ id: bigint }>(`SELECT nextval('platform_offer_ids') AS id`);
    const id = String(row?.id);
    await uow.tx.runPrepared(
      `INSERT INTO platform_offers (id, order_id, steam_id, state, sent_at, expires_at, due_at, due_event, sender_steam_id,
                                    answerer_steam_id)
       VALUES ($id, $order_id, $steam_id, 'active', make_timestamp($sent * 1000), make_timestamp($expires * 1000),
               make_timestamp($due * 1000), $event, $sender, $answerer)`,
      {
        id,
        order_id: offer.orderId,
        steam_id: offer.steamId,
        sender: offer.senderSteamId,
        answerer: offer.answererSteamId ?? null,
        sent: times.sentAt,
        expires: times.expiresAt,
        due: times.due.at,
        event: times.due.event,
      },
    );
    for (const [position, item] of offer.items.entries()) {
      await uow.tx.runPrepared(
        `INSERT INTO platform_offer_items (offer_id, position, item_key, app_id, market_hash_name, listing_id, listing, asset_id)
         VALUES ($id, $position, $key, $app_id, $name, $listing_id, $listing, $asset_id)`,
        {
          id,
          asset_id: item.assetId ?? null,
          position,
          key: item.itemKey,
          app_id: item.appId,
          name: item.marketHashName,
          listing_id: item.listingId,
          listing: item.listingJson,
        },
      );
    }
    return id;
  }

  /** The offer as the unit of work sees it, or undefined. */
  async findIn(uow: UnitOfWork, id: string): Promise<OfferRecord | undefined> {
    const rows = await uow.tx.all(`SELECT ${OFFER_COLUMNS} FROM platform_offers WHERE id = $id`, { id });
    return rows[0] ? recordFromRow(rows[0]) : undefined;
  }

  /** Active offers a user answers (as recipient, or as a sender asked for their items) as the unit of work sees them. */
  async activeOf(uow: UnitOfWork, steamId: string): Promise<OfferRecord[]> {
    const rows = await uow.tx.all(
      `SELECT ${OFFER_COLUMNS} FROM platform_offers
       WHERE coalesce(answerer_steam_id, steam_id) = $steam_id AND state = 'active'`,
      { steam_id: steamId },
    );
    return rows.map(recordFromRow);
  }

  /** The item keys of an offer, in the order they were sent. */
  async itemKeys(uow: UnitOfWork, id: string): Promise<string[]> {
    const rows = await uow.tx.all<{ item_key: string }>(
      'SELECT item_key FROM platform_offer_items WHERE offer_id = $id ORDER BY position',
      { id },
    );
    return rows.map((row) => row.item_key);
  }

  /** Moves an offer to its next state at `at`; a closed offer has no further timed step. */
  async moveTo(uow: UnitOfWork, id: string, state: OfferOutcome, at: number): Promise<void> {
    const stamp = state === 'rolled_back' ? 'rolled_back_at' : 'closed_at';
    await uow.tx.runPrepared(
      `UPDATE platform_offers SET state = $state, due_at = NULL, due_event = NULL, ${stamp} = make_timestamp($at * 1000)
       WHERE id = $id`,
      { id, state, at },
    );
  }

  /** Replaces the next timed step of an active offer. */
  async reschedule(uow: UnitOfWork, id: string, due: PlannedStep): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE platform_offers SET due_at = make_timestamp($at * 1000), due_event = $event WHERE id = $id AND state = 'active'`,
      { id, at: due.at, event: due.event },
    );
  }

  /** Ids of committed active offers whose next step is due by `now`, earliest first. */
  async dueBy(now: number): Promise<string[]> {
    const rows = await this.db.read<{ id: string }>(
      `SELECT id FROM platform_offers WHERE state = 'active' AND due_at <= make_timestamp($now * 1000)
       ORDER BY due_at, id`,
      { now },
    );
    return rows.map((row) => row.id);
  }

  /** The earliest next step of a committed active offer from `from` on, or null. */
  async nextDueFrom(from: number): Promise<number | null> {
    return readNextDue(
      this.db,
      `SELECT min(due_at) AS due FROM platform_offers
       WHERE state = 'active' AND due_at >= make_timestamp($from * 1000)`,
      { from },
    );
  }

  /** Committed active offers per recipient (read at start-up). */
  async activeCounts(): Promise<Map<string, number>> {
    const rows = await this.db.read<{ steam_id: string; n: bigint }>(
      `SELECT steam_id, count(*) AS n FROM platform_offers WHERE state = 'active' GROUP BY steam_id`,
    );
    return new Map(rows.map((row) => [row.steam_id, Number(row.n)]));
  }

  /** Committed offers sent to or by an account, newest first. */
  async involving(steamId: string): Promise<OfferRecord[]> {
    const rows = await this.db.read(
      `SELECT ${OFFER_COLUMNS} FROM platform_offers WHERE steam_id = $steam_id OR sender_steam_id = $steam_id
       ORDER BY sent_at DESC, CAST(id AS BIGINT) DESC`,
      { steam_id: steamId },
    );
    return rows.map(recordFromRow);
  }
}

/** An offer as `OFFER_COLUMNS` reads it (times in epoch ms), as its record. */
const offerRowSchema = z
  .object({
    id: z.string(),
    order_id: z.string(),
    steam_id: z.string(),
    sender_steam_id: z.string().nullable(),
    state: z.custom<OfferState>(
      (value) => typeof value === 'string' && Object.hasOwn(OFFER_TRANSITIONS, value),
    ),
    sent_ms: bigintColumn,
    expires_ms: bigintColumn,
    closed_ms: bigintColumn.nullable(),
    due_ms: bigintColumn.nullable(),
    due_event: z.enum(['accept', 'decline', 'expire']).nullable(),
  })
  .transform(
    (row): OfferRecord => ({
      id: row.id,
      orderId: row.order_id,
      steamId: row.steam_id,
      senderSteamId: row.sender_steam_id,
      state: row.state,
      sentAt: row.sent_ms,
      expiresAt: row.expires_ms,
      closedAt: row.closed_ms,
      due: row.due_ms === null || row.due_event === null ? null : { at: row.due_ms, event: row.due_event },
    }),
  );

function recordFromRow(row: unknown): OfferRecord {
  return parseRow(offerRowSchema, row, 'platform_offers');
}
