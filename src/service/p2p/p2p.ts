/**
 * The P2P feature's operations: the seller's inventory (every read is a full read that reconciles
 * the shelf), publishing, repricing, delisting and paging listings, and the sales that orders start.
 */
import { APP_IDS, centsToUsd } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import type { InventoryProof, P2PInventoryItem, P2PPublishItem } from '../../contract/p2p.js';
import type { Database } from '../../shared/database.js';
import type { Account } from '../core/caller.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { commissionCents, floorCents } from './commission.js';
import { describeEnd, hasEnded, type ListingRecord, operationalAssetId } from './listing-record.js';
import { nextListingStatus } from './listing-states.js';
import { type ListingPageQuery, ListingStore } from './listing-store.js';
import type { BuyerOrders, Payouts, Proof, SellerCopy, SellerPlatform, Shelf } from './ports.js';
import { PublishKeys } from './publish-keys.js';
import { belowMarketRefusal, type ItemOutcome, Publishing } from './publishing.js';
import { Sales } from './sales.js';

/** What changing a listing may refuse with; the routes document exactly these lists. */
export const LISTING_ERRORS = {
  reprice: ['not_found', 'listing_not_active', 'price_below_market'],
  delist: ['not_found', 'listing_not_active'],
} as const;

const refuseListing = refuseOnly(LISTING_ERRORS.delist);

/** P2P is CS2 only. */
const CS2 = APP_IDS.cs2;

/** What P2P is built from. */
export interface P2PDeps {
  db: Database;
  units: UnitOfWorkRunner;
  platform: SellerPlatform;
  shelf: Shelf;
  payouts: Payouts;
  orders: BuyerOrders;
}

/** P2P listings from publishing to sale. */
export class P2P {
  readonly store: ListingStore;
  readonly sales: Sales;
  private readonly publishing: Publishing;

  constructor(private readonly deps: P2PDeps) {
    this.store = new ListingStore(deps.db);
    this.sales = new Sales({ ...deps, store: this.store });
    this.publishing = new Publishing({ ...deps, store: this.store, keys: new PublishKeys() });
  }

  /** Loads what P2P keeps in memory. */
  load(): Promise<void> {
    return this.store.load();
  }

  /** True for a listing of the public catalogue that a user sells through P2P. */
  isUserListing(listing: Listing): boolean {
    return listing.source === 'p2p';
  }

  /**
   * A full read of the seller's inventory: the proof, and when it is ready every copy with what it
   * would take to list it. Active listings whose copy the read no longer shows leave the shelf
   * first (reconciliation_required, needs_resync).
   */
  async inventory(
    account: Account,
  ): Promise<{ data: P2PInventoryItem[]; inventory_proof: InventoryProof | null }> {
    if (account.steamId === null) return { data: [], inventory_proof: null };
    const read = await this.deps.platform.readInventory(account.steamId);
    if (read.proof.status !== 'ready') return { data: [], inventory_proof: proofJson(read.proof) };
    await this.reconcile(account, read.copies);
    const live = await this.store.liveOf(account.id);
    return {
      data: read.copies.map((copy) => this.row(copy, live.get(copy.assetId))),
      inventory_proof: proofJson(read.proof),
    };
  }

  /** Publishes items under an Idempotency-Key; one outcome per item. */
  publish(account: Account, key: string, items: readonly P2PPublishItem[]): Promise<ItemOutcome[]> {
    return this.publishing.publish(account, key, items);
  }

  /** Reprices an active listing (same price rules as publishing); commission and payout follow. */
  reprice(account: Account, id: string, priceCents: number): Promise<ListingRecord> {
    return this.deps.units.run(async (uow) => {
      const record = await this.ownIn(uow, account, id);
      record.status = nextListingStatus(record.status, 'repriced');
      const belowMarket = belowMarketRefusal(this.deps.shelf, record.marketHashName, priceCents);
      if (belowMarket) throw belowMarket;
      const listing = { ...(JSON.parse(record.listingJson) as Listing), price_usd: centsToUsd(priceCents) };
      record.priceCents = priceCents;
      record.commissionCents = commissionCents(priceCents);
      record.listingJson = JSON.stringify(listing);
      record.updatedAt = uow.now;
      await this.deps.shelf.applyIn(uow, [{ kind: 'add', appId: CS2, listing }]);
      await this.store.update(uow, record);
      return record;
    });
  }

  /** Withdraws an active (or reconciliation_required) listing; an active one leaves the shelf. */
  delist(account: Account, id: string): Promise<ListingRecord> {
    return this.deps.units.run(async (uow) => {
      const record = await this.ownIn(uow, account, id);
      const wasActive = record.status === 'active';
      record.status = nextListingStatus(record.status, 'delisted');
      record.updatedAt = uow.now;
      if (wasActive) await this.deps.shelf.applyIn(uow, [{ kind: 'remove', id }]);
      await this.store.update(uow, record);
      return record;
    });
  }

  /** A page of the seller's listings that have not ended, newest first (one row past the page). */
  listings(query: ListingPageQuery): Promise<ListingRecord[]> {
    return this.store.page(query);
  }

  /** Takes off the shelf every active listing whose copy the full read did not show, each checked again in its unit. */
  private async reconcile(account: Account, copies: readonly SellerCopy[]): Promise<void> {
    const seen = new Set(copies.map((c) => c.assetId));
    const steamId = account.steamId as string;
    for (const record of (await this.store.liveOf(account.id)).values()) {
      if (record.status !== 'active' || seen.has(record.assetId)) continue;
      await this.deps.units.run(async (uow) => {
        const current = await this.store.getIn(uow, record.id);
        if (current?.status !== 'active') return;
        if (await this.deps.platform.copyIn(uow, steamId, current.assetId)) return;
        current.status = nextListingStatus(current.status, 'missing');
        current.needsResync = true;
        current.updatedAt = uow.now;
        await this.deps.shelf.applyIn(uow, [{ kind: 'remove', id: current.id }]);
        await this.store.update(uow, current);
      });
    }
  }

  /**
   * The caller's own listing as the unit of work sees it, or 404: another account's listing, and
   * one that has ended, which is no longer a listing.
   */
  private async ownIn(uow: UnitOfWork, account: Account, id: string): Promise<ListingRecord> {
    const record = await this.store.getIn(uow, id);
    if (!record || record.accountId !== account.id)
      throw refuseListing('not_found', `no P2P listing ${id} on this account`);
    if (hasEnded(record)) throw refuseListing('not_found', describeEnd(record));
    return record;
  }

  private row(copy: SellerCopy, listing: ListingRecord | undefined): P2PInventoryItem {
    const market = copy.appId === CS2 ? this.deps.shelf.marketCents(CS2, copy.marketHashName) : null;
    const reasons = [
      ...(copy.appId === CS2 ? [] : ['unsupported_item']),
      ...(listing ? ['already_listed'] : []),
    ];
    return {
      asset_id: copy.assetId,
      app_id: copy.appId,
      operational_asset_id: operationalAssetId(copy.appId, copy.assetId),
      asset_revision: copy.revision,
      market_hash_name: copy.marketHashName,
      market_usd: market === null ? null : centsToUsd(market),
      floor_usd: market === null ? null : centsToUsd(floorCents(market)),
      listable: reasons.length === 0,
      reasons,
      listed: listing !== undefined,
      listing_id: listing?.id ?? null,
    };
  }
}

function proofJson(proof: Proof): InventoryProof {
  return {
    status: proof.status,
    retry_after_ms: proof.status === 'pending' ? proof.retryAfterMs : null,
    code: proof.status === 'blocked' ? proof.code : null,
    checked_at: proof.status === 'ready' ? new Date(proof.checkedAt).toISOString() : null,
  };
}
