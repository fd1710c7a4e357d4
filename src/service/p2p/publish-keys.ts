/**
 * Idempotency-Keys of POST /p2p/listings, per item: the listing each item published under a key.
 * A refused item wrote nothing and is never recorded, so it can be sent again with the key.
 */
import { z } from 'zod';
import { bigintColumn, parseRows } from '../../shared/row-schema.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** One item's outcome under a key. */
export interface KeyedItem {
  operationalAssetId: string;
  assetRevision: string;
  priceCents: number;
  /** The listing it published. */
  listingId: string;
}

/** The p2p_publish_keys table, read and written in the caller's unit of work. */
export class PublishKeys {
  private readonly running = new Set<string>();

  /** Marks a key as running for an account; false when a request with it is already running. */
  begin(accountId: string, key: string): boolean {
    const id = `${accountId}\u0000${key}`;
    if (this.running.has(id)) return false;
    this.running.add(id);
    return true;
  }

  /** Ends what {@link begin} started. */
  end(accountId: string, key: string): void {
    this.running.delete(`${accountId}\u0000${key}`);
  }

  /** The items recorded under a key, by operational asset id. */
  async itemsIn(uow: UnitOfWork, accountId: string, key: string): Promise<Map<string, KeyedItem>> {
    const rows = await uow.tx.all(
      `SELECT operational_asset_id, asset_revision, price_cents, listing_id FROM p2p_publish_keys
       WHERE account_id = $account AND idempotency_key = $key AND listing_id IS NOT NULL`,
      { account: accountId, key },
    );
    const items = parseRows(keyedItemRowSchema, rows, 'p2p_publish_keys');
    return new Map(items.map((item) => [item.operationalAssetId, item]));
  }

  /** Records the listing an item published under a key. */
  async record(uow: UnitOfWork, accountId: string, key: string, item: KeyedItem): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO p2p_publish_keys (account_id, idempotency_key, operational_asset_id, asset_revision, price_cents,
         listing_id, created_at)
       VALUES ($account, $key, $op, $revision, $price, $listing, make_timestamp($at * 1000))`,
      {
        account: accountId,
        key,
        op: item.operationalAssetId,
        revision: item.assetRevision,
        price: item.priceCents,
        listing: item.listingId,
        at: uow.now,
      },
    );
  }
}

/** A row of `p2p_publish_keys`, as the item it records. */
const keyedItemRowSchema = z
  .object({
    operational_asset_id: z.string(),
    asset_revision: z.string(),
    price_cents: bigintColumn,
    listing_id: z.string(),
  })
  .transform(
    (row): KeyedItem => ({
      operationalAssetId: row.operational_asset_id,
      assetRevision: row.asset_revision,
      priceCents: row.price_cents,
      listingId: row.listing_id,
    }),
  );
