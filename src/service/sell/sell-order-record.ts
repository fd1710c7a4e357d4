/** A sell order as the service holds it (cents, epoch ms) and the SellOrder JSON the API answers. */
import { centsToUsd } from '../../contract/common.js';
import type {
  SellBot,
  SellItemStatus,
  SellOfferStatus,
  SellOrder,
  SellOrderStatus,
} from '../../contract/sell.js';

/** One item of a sell order. */
export interface SellItemRecord {
  assetId: string;
  marketHashName: string;
  amountCents: number;
  status: SellItemStatus;
  /** The bot offer that carries it; null before the offers went out. */
  offerId: string | null;
}

/** One bot's offer of a sell order. */
export interface SellOfferRecord {
  offerId: string;
  bot: SellBot;
  assetIds: string[];
  status: SellOfferStatus;
  /** When the seller accepted it; null otherwise. */
  acceptedAt: number | null;
}

/** A sell order; times in epoch ms on the service clock. */
export interface SellOrderRecord {
  id: string;
  seq: number;
  accountId: string;
  externalId: string | null;
  quoteId: string;
  appId: number;
  steamId: string;
  status: SellOrderStatus;
  minTotalCents: number | null;
  failureReason: string | null;
  items: SellItemRecord[];
  offers: SellOfferRecord[];
  creditedCents: number;
  settledCents: number;
  sendAt: number | null;
  settlesAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Item states that still count in the total: what is or will be credited. */
const LIVE_ITEM_STATUSES: readonly SellItemStatus[] = ['pending', 'offered', 'received'];

/** Sum of the cents of items in the given states. */
export function sumOf(items: readonly SellItemRecord[], statuses: readonly SellItemStatus[]): number {
  return items.filter((i) => statuses.includes(i.status)).reduce((sum, i) => sum + i.amountCents, 0);
}

/** The SellOrder JSON of a record. */
export function sellOrderJson(order: SellOrderRecord): SellOrder {
  return {
    id: order.id,
    external_id: order.externalId,
    quote_id: order.quoteId,
    app_id: order.appId,
    steam_id: order.steamId,
    status: order.status,
    currency: 'USD',
    total_usd: centsToUsd(sumOf(order.items, LIVE_ITEM_STATUSES)),
    credited_usd: centsToUsd(order.creditedCents),
    settled_usd: centsToUsd(order.settledCents),
    settles_at: order.settlesAt === null ? null : iso(order.settlesAt),
    failure_reason: order.failureReason,
    items: order.items.map((item) => ({
      asset_id: item.assetId,
      market_hash_name: item.marketHashName,
      amount_usd: centsToUsd(item.amountCents),
      status: item.status,
    })),
    offers: order.offers.map((offer) => ({
      bot: offer.bot,
      trade_offer_id: offer.offerId,
      items: offer.assetIds,
      status: offer.status,
    })),
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
