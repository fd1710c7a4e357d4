/** An order as trading holds it (cents, epoch ms), its derived status, and its contract JSON. */
import { APP_IDS, centsToUsd } from '../../contract/common.js';
import type { Delivery } from '../../contract/listing.js';
import type {
  Order,
  OrderDelivery,
  OrderItemStatus,
  OrderStatus,
  ReturnReason,
} from '../../contract/order.js';

/** A small grace after the unlock instant before a held order can be claimed. */
export const CLAIM_GRACE_MS = 60_000;
/** How long a claimable held order waits for its claim before its items return (`expired`). */
export const CLAIM_WINDOW_MS = 7 * 86_400_000;

/** One item of an order. */
export interface ItemRecord {
  position: number;
  listingId: string;
  listingJson: string;
  marketHashName: string;
  priceCents: number;
  listingDelivery: Delivery;
  status: OrderItemStatus;
  tradableAt: number | null;
  returnReason: ReturnReason | null;
  offerId: string | null;
  offerFinishedAt: number | null;
  /** When trading sends the item (a human seller's delay); null for held items and user listings. */
  sendAt: number | null;
  /** When an unsent `up_to_12h` item is given up on; held items follow their order's claim window. */
  giveUpAt: number | null;
}

/** An order with its items. */
export interface OrderRecord {
  id: string;
  seq: number;
  accountId: string;
  appId: number;
  kind: 'order' | 'market_buy';
  steamId: string | null;
  customId: string | null;
  status: OrderStatus;
  chargedCents: number;
  settledPaidCents: number;
  refundCents: number | null;
  refundPartial: boolean | null;
  refundedAt: number | null;
  delivery: OrderDelivery;
  expectedMinutes: number | null;
  createdAt: number;
  updatedAt: number;
  items: ItemRecord[];
}

/**
 * The order's status from its items: all returned → cancelled when the buyer let every offer go
 * (declined or timed out), else failed; all settled with one delivered → completed; an offer out
 * → delivering; a trade lock → hold; otherwise pending (nothing sent yet).
 */
export function deriveStatus(items: readonly ItemRecord[]): OrderStatus {
  if (items.every((i) => i.status === 'returned')) {
    const buyerLetGo = items.every(
      (i) => i.returnReason === 'declined' || i.returnReason === 'trade_timeout',
    );
    return buyerLetGo ? 'cancelled' : 'failed';
  }
  if (items.every((i) => i.status === 'returned' || i.status === 'delivered')) return 'completed';
  if (items.some((i) => i.status === 'delivering' && i.offerId !== null)) return 'delivering';
  if (items.some((i) => i.status === 'hold')) return 'hold';
  return 'pending';
}

/** The end of the order's trade lock: the latest `tradable_at` of its held items, or null. */
export function holdUntil(order: OrderRecord): number | null {
  const held = order.items.filter((i) => i.status === 'hold' && i.tradableAt !== null);
  return held.length === 0 ? null : Math.max(...held.map((i) => i.tradableAt as number));
}

/**
 * When the order's claim window ends: the window belongs to the order and starts once the whole
 * order is claimable (its latest lock plus the grace), so no item expires before every item could
 * have been claimed for the full window. Null when nothing is held.
 */
export function claimWindowEnd(order: OrderRecord): number | null {
  const until = holdUntil(order);
  return until === null ? null : until + CLAIM_GRACE_MS + CLAIM_WINDOW_MS;
}

/** True when a held order can be claimed at `now`. */
export function isClaimable(order: OrderRecord, now: number): boolean {
  const until = holdUntil(order);
  return order.status === 'hold' && until !== null && now >= until + CLAIM_GRACE_MS;
}

const DELIVERY_RANK: Record<Delivery, number> = { instant: 0, up_to_12h: 1, hold: 2 };

/** The order's delivery (the slowest item's; `pending` outside CS2) and its estimate in minutes. */
export function deliveryEstimate(
  appId: number,
  items: readonly Pick<ItemRecord, 'listingDelivery' | 'tradableAt'>[],
  now: number,
): { delivery: OrderDelivery; expectedMinutes: number | null } {
  if (appId !== APP_IDS.cs2) return { delivery: 'pending', expectedMinutes: null };
  const slowest = items.reduce<Delivery>(
    (worst, i) => (DELIVERY_RANK[i.listingDelivery] > DELIVERY_RANK[worst] ? i.listingDelivery : worst),
    'instant',
  );
  if (slowest === 'instant') return { delivery: slowest, expectedMinutes: 1 };
  if (slowest === 'up_to_12h') return { delivery: slowest, expectedMinutes: 720 };
  const until = Math.max(...items.map((i) => i.tradableAt ?? now));
  return { delivery: slowest, expectedMinutes: Math.ceil((until + CLAIM_GRACE_MS - now) / 60_000) };
}

/** The order as the API answers it at `now` (keys in the schema's order). */
export function orderJson(order: OrderRecord, now: number): Order {
  const until = holdUntil(order);
  return {
    order_id: order.id,
    app_id: order.appId,
    steam_id: order.steamId,
    status: order.status,
    custom_id: order.customId,
    currency: 'USD',
    charged_total_usd: centsToUsd(order.chargedCents),
    item_count: order.items.length,
    delivery: order.delivery,
    expected_minutes: order.expectedMinutes,
    hold_until: until === null ? null : iso(until),
    claimable: isClaimable(order, now),
    refund:
      order.refundCents === null
        ? null
        : {
            amount_usd: centsToUsd(order.refundCents),
            refunded_at: iso(order.refundedAt ?? order.updatedAt),
            partial: order.refundPartial ?? false,
          },
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    items: order.items.map((i) => ({
      listing_id: i.listingId,
      market_hash_name: i.marketHashName,
      price_usd: centsToUsd(i.priceCents),
      status: i.status,
      tradable_at: i.status === 'hold' && i.tradableAt !== null ? iso(i.tradableAt) : null,
      return_reason: i.returnReason,
      steam_trade_offer_id: i.offerId,
      steam_trade_offer_finished_at: i.offerFinishedAt === null ? null : iso(i.offerFinishedAt),
    })),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
