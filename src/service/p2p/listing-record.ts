/** A P2P listing as the feature holds it (cents, epoch ms), and its contract JSON. */
import { centsToUsd } from '../../contract/common.js';
import type { P2PListing } from '../../contract/p2p.js';
import { isAnswered, type ListingState } from './listing-states.js';

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
  /** Its state in the service's table; /v1 answers only the specification's five. */
  status: ListingState;
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

/** True when the listing has ended (sold, cancelled or delisted): /v1 no longer answers it. */
export function hasEnded(record: ListingRecord): boolean {
  return !isAnswered(record.status);
}

/** Why an ended listing is no longer one, and where what became of it can be read. */
export function describeEnd(record: ListingRecord): string {
  const end =
    record.status === 'sold'
      ? `was sold and settled (the sale is the sale row of GET /transactions with order_id ${record.id})`
      : record.status === 'delisted'
        ? 'was withdrawn with DELETE'
        : "ended with its sale cancelled (the buyer's order was refunded and the copy stays in your inventory)";
  return `P2P listing ${record.id} ${end}; it is no longer a listing`;
}

/** The listing as the API answers it; an ended listing has no answer (callers refuse it first). */
export function listingJson(record: ListingRecord): P2PListing {
  const status = record.status;
  if (!isAnswered(status))
    throw new Error(`P2P listing ${record.id} has ended (${status}) and has no answer`);
  return {
    id: record.id,
    status,
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
