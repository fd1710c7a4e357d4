/** A P2P listing as the feature holds it (cents, epoch ms), and its contract JSON. */
import { centsToUsd } from '../../contract/common.js';
import type { P2PListing, P2PListingStatus } from '../../contract/p2p.js';

/** The next timed step of a sale: the seller sends, or the verification hold ends. */
export interface SaleStep {
  event: 'send' | 'release';
  at: number;
}

/** A P2P listing with its sale. */
export interface ListingRecord {
  id: string;
  seq: number;
  accountId: string;
  steamId: string;
  assetId: string;
  assetRevision: string;
  marketHashName: string;
  /** The Listing JSON it has (or had) in the public catalogue. */
  listingJson: string;
  status: P2PListingStatus;
  priceCents: number;
  commissionCents: number;
  needsResync: boolean;
  orderId: string | null;
  itemKey: string | null;
  buyerSteamId: string | null;
  offerId: string | null;
  due: SaleStep | null;
  endReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The operational asset id of a copy: what GET /p2p/inventory shows and POST /p2p/listings takes. */
export function operationalAssetId(appId: number, assetId: string): string {
  return `${appId}_${assetId}`;
}

/** The game and asset id an operational asset id names, or null when it is not one of ours. */
export function assetIdOf(operational: string): { appId: number; assetId: string } | null {
  const match = /^([0-9]{1,10})_([0-9]{1,20})$/.exec(operational);
  return match ? { appId: Number(match[1]), assetId: match[2] as string } : null;
}

/** The listing as the API answers it. */
export function listingJson(record: ListingRecord): P2PListing {
  return {
    id: record.id,
    status: record.status,
    price_usd: centsToUsd(record.priceCents),
    commission_usd: centsToUsd(record.commissionCents),
    seller_payout_usd: centsToUsd(record.priceCents - record.commissionCents),
    asset_id: record.assetId,
    market_hash_name: record.marketHashName,
    needs_resync: record.needsResync,
    order_id: record.orderId,
    trade_offer_id: record.offerId,
    end_reason: record.endReason,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}
