/** Platform inventories: one row per copy of an item, added by an accepted offer and removed by its rollback. */
import type { Database } from '../../shared/database.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { InventoryItem } from './offer-types.js';

/** Reads and writes the platform_inventory table. */
export class InventoryStore {
  constructor(private readonly db: Database) {}

  /** Puts a copy of every item of an offer (new asset ids) into the recipient's inventory. */
  async deliver(uow: UnitOfWork, offerId: string, steamId: string, at: number): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO platform_inventory
         (asset_id, steam_id, app_id, market_hash_name, listing_id, listing, item_key, offer_id, acquired_at)
       SELECT CAST(nextval('platform_asset_ids') AS VARCHAR), $steam_id, app_id, market_hash_name, listing_id,
              listing, item_key, offer_id, make_timestamp($at * 1000)
       FROM platform_offer_items WHERE offer_id = $offer_id`,
      { offer_id: offerId, steam_id: steamId, at },
    );
  }

  /** Takes back every copy an offer delivered (a trade reversal). */
  async takeBack(uow: UnitOfWork, offerId: string): Promise<void> {
    await uow.tx.runPrepared('DELETE FROM platform_inventory WHERE offer_id = $offer_id', {
      offer_id: offerId,
    });
  }

  /** The committed inventory of a platform account, oldest first. */
  async of(steamId: string): Promise<InventoryItem[]> {
    const rows = await this.db.read<Record<string, unknown>>(
      `SELECT asset_id, app_id, market_hash_name, listing_id, epoch_ms(acquired_at) AS acquired_ms, offer_id
       FROM platform_inventory WHERE steam_id = $steam_id ORDER BY acquired_at, CAST(asset_id AS BIGINT)`,
      { steam_id: steamId },
    );
    return rows.map((row) => ({
      asset_id: String(row.asset_id),
      app_id: Number(row.app_id),
      market_hash_name: String(row.market_hash_name),
      listing_id: String(row.listing_id),
      acquired_at: new Date(Number(row.acquired_ms)).toISOString(),
      offer_id: String(row.offer_id),
    }));
  }
}
