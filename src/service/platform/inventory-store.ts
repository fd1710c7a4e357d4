/**
 * Platform inventories: one row per copy of an item. Copies arrive by an accepted offer or a sandbox
 * grant, leave by a rollback, a sandbox removal or an accepted user offer, and are held out of
 * their owner's inventory while a user's own open offer carries them. Every change to a copy gives
 * it a new revision.
 */
import { z } from 'zod';
import type { Database } from '../../shared/database.js';
import { bigintColumn, parseRow } from '../../shared/row-schema.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { InventoryItem, OwnedCopy } from './offer-types.js';

/** What a granted copy is: the item's description, as a listing of it reads. */
export interface GrantedItem {
  appId: number;
  marketHashName: string;
  /** The listing the description was taken from. */
  listingId: string;
  listingJson: string;
}

/** A fresh revision, 32 hex characters, in SQL. */
const NEW_REVISION = `md5(gen_random_uuid()::VARCHAR)`;

const COPY_COLUMNS = `asset_id, steam_id, app_id, market_hash_name, listing_id, listing, revision, offer_id,
  epoch_ms(acquired_at) AS acquired_ms`;

/** Reads and writes the platform_inventory table. */
export class InventoryStore {
  constructor(private readonly db: Database) {}

  /** Puts a copy of every item of an offer (new asset ids) into `steamId`'s inventory. */
  async deliver(uow: UnitOfWork, offerId: string, steamId: string, at: number): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO platform_inventory
         (asset_id, steam_id, app_id, market_hash_name, listing_id, listing, item_key, offer_id, acquired_at, revision)
       SELECT CAST(nextval('platform_asset_ids') AS VARCHAR), $steam_id, app_id, market_hash_name, listing_id,
              listing, item_key, offer_id, make_timestamp($at * 1000), ${NEW_REVISION}
       FROM platform_offer_items WHERE offer_id = $offer_id ORDER BY position`,
      { offer_id: offerId, steam_id: steamId, at },
    );
  }

  /** Takes back every copy an offer delivered (a trade reversal). */
  async takeBack(uow: UnitOfWork, offerId: string): Promise<void> {
    await uow.tx.runPrepared('DELETE FROM platform_inventory WHERE offer_id = $offer_id', {
      offer_id: offerId,
    });
  }

  /** Grants `count` new copies of an item to an account; returns their asset ids in order. */
  async grant(uow: UnitOfWork, steamId: string, item: GrantedItem, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const [row] = await uow.tx.all<{ id: bigint }>(`SELECT nextval('platform_asset_ids') AS id`);
      const assetId = String(row?.id);
      await uow.tx.runPrepared(
        `INSERT INTO platform_inventory
           (asset_id, steam_id, app_id, market_hash_name, listing_id, listing, item_key, offer_id, acquired_at, revision)
         VALUES ($asset_id, $steam_id, $app_id, $name, $listing_id, $listing, 'grant', '', make_timestamp($at * 1000),
                 ${NEW_REVISION})`,
        {
          asset_id: assetId,
          steam_id: steamId,
          app_id: item.appId,
          name: item.marketHashName,
          listing_id: item.listingId,
          listing: item.listingJson,
          at: uow.now,
        },
      );
      ids.push(assetId);
    }
    return ids;
  }

  /** Removes a copy at home in an account's inventory; false when there is none. */
  async remove(uow: UnitOfWork, steamId: string, assetId: string): Promise<boolean> {
    if (!(await this.copyIn(uow, steamId, assetId))) return false;
    await uow.tx.runPrepared('DELETE FROM platform_inventory WHERE asset_id = $asset_id', {
      asset_id: assetId,
    });
    return true;
  }

  /** A copy at home in an account's inventory as the unit of work sees it (not one an open offer carries). */
  async copyIn(uow: UnitOfWork, steamId: string, assetId: string): Promise<OwnedCopy | undefined> {
    const rows = await uow.tx.all(
      `SELECT ${COPY_COLUMNS} FROM platform_inventory
       WHERE asset_id = $asset_id AND steam_id = $steam_id AND in_offer_id IS NULL`,
      { asset_id: assetId, steam_id: steamId },
    );
    return rows[0] ? copyOf(rows[0]) : undefined;
  }

  /** Takes copies out of their owner's inventory into an open user offer (each gets a new revision). */
  async hold(uow: UnitOfWork, offerId: string, assetIds: readonly string[]): Promise<void> {
    for (const assetId of assetIds)
      await uow.tx.runPrepared(
        `UPDATE platform_inventory SET in_offer_id = $offer_id, revision = ${NEW_REVISION} WHERE asset_id = $asset_id`,
        { offer_id: offerId, asset_id: assetId },
      );
  }

  /** Puts the copies an offer carried back home (a declined or expired user offer); new revisions. */
  async release(uow: UnitOfWork, offerId: string): Promise<void> {
    await uow.tx.runPrepared(
      `UPDATE platform_inventory SET in_offer_id = NULL, revision = ${NEW_REVISION} WHERE in_offer_id = $offer_id`,
      { offer_id: offerId },
    );
  }

  /** Removes the copies an accepted user offer carried away from the sender. */
  async dropCarried(uow: UnitOfWork, offerId: string): Promise<void> {
    await uow.tx.runPrepared('DELETE FROM platform_inventory WHERE in_offer_id = $offer_id', {
      offer_id: offerId,
    });
  }

  /** The committed copies at home in an account's inventory, oldest first. */
  async owned(steamId: string): Promise<OwnedCopy[]> {
    const rows = await this.db.read(
      `SELECT ${COPY_COLUMNS} FROM platform_inventory WHERE steam_id = $steam_id AND in_offer_id IS NULL
       ORDER BY acquired_at, CAST(asset_id AS BIGINT)`,
      { steam_id: steamId },
    );
    return rows.map(copyOf);
  }

  /** The committed inventory of a platform account as the sandbox shows it, oldest first. */
  async of(steamId: string): Promise<InventoryItem[]> {
    return (await this.owned(steamId)).map((copy) => ({
      asset_id: copy.assetId,
      asset_revision: copy.revision,
      app_id: copy.appId,
      market_hash_name: copy.marketHashName,
      listing_id: copy.listingId,
      acquired_at: new Date(copy.acquiredAt).toISOString(),
      offer_id: copy.offerId,
    }));
  }
}

/** A copy as `COPY_COLUMNS` reads it (`offer_id` empty for a granted copy), as the owned copy. */
const copyRowSchema = z
  .object({
    asset_id: z.string(),
    steam_id: z.string(),
    app_id: z.number(),
    market_hash_name: z.string(),
    listing_id: z.string(),
    listing: z.string(),
    revision: z.string(),
    offer_id: z.string(),
    acquired_ms: bigintColumn,
  })
  .transform(
    (row): OwnedCopy => ({
      assetId: row.asset_id,
      steamId: row.steam_id,
      appId: row.app_id,
      marketHashName: row.market_hash_name,
      listingId: row.listing_id,
      listingJson: row.listing,
      revision: row.revision,
      offerId: row.offer_id === '' ? null : row.offer_id,
      acquiredAt: row.acquired_ms,
    }),
  );

function copyOf(row: unknown): OwnedCopy {
  return parseRow(copyRowSchema, row, 'platform_inventory');
}
