/**
 * What happens to an order after it is placed, each step one unit of work on the service clock:
 * offers closing (accepted, declined, timed out, rolled back), claims of held orders (by the buyer
 * or by autoclaim), human sellers sending late or never, and claim windows running out. Returned
 * items are refunded and come back to the catalogue in the same transaction.
 */
import type { Listing } from '../../contract/listing.js';
import type { ReturnReason } from '../../contract/order.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { type ItemEvent, nextItemStatus } from './item-states.js';
import {
  CLAIM_GRACE_MS,
  CLAIM_WINDOW_MS,
  claimWindowEnd,
  deriveStatus,
  type ItemRecord,
  isClaimable,
  type OrderRecord,
} from './order-record.js';
import type { OrderStore } from './order-store.js';
import type {
  AccountSettings,
  Funds,
  ListingSource,
  OfferClosed,
  TradePlatform,
  UserListings,
} from './ports.js';
import { sendOffer } from './send-offer.js';

/** What claiming an order may refuse with (POST /orders/{id}/claim documents these). */
export const CLAIM_ERRORS = ['not_found', 'not_claimable'] as const;

const refuse = refuseOnly(CLAIM_ERRORS);

/** What the lifecycle uses. */
export interface LifecycleDeps {
  units: UnitOfWorkRunner;
  store: OrderStore;
  funds: Funds;
  listings: ListingSource;
  platform: TradePlatform;
  accounts: Pick<AccountSettings, 'account'>;
  userSales: Pick<UserListings, 'isUserListing'>;
}

const OUTCOME_EVENTS: Record<OfferClosed['outcome'], { event: ItemEvent; reason: ReturnReason | null }> = {
  accepted: { event: 'offer_accepted', reason: null },
  declined: { event: 'offer_declined', reason: 'declined' },
  expired: { event: 'offer_expired', reason: 'trade_timeout' },
  rolled_back: { event: 'rolled_back', reason: 'rolled_back' },
};

/** The grace after a trade lock and the claim window after it, as the order store reads them. */
const ORDER_WINDOWS = { graceMs: CLAIM_GRACE_MS, claimMs: CLAIM_WINDOW_MS };

/** Moves orders along as offers close and due times pass. */
export class OrderLifecycle {
  constructor(private readonly deps: LifecycleDeps) {
    deps.platform.onOfferClosed((uow, event) => this.offerClosed(uow, event));
  }

  /** Applies a closed offer to its order, inside the platform's unit of work. */
  async offerClosed(uow: UnitOfWork, event: OfferClosed): Promise<void> {
    const order = await this.deps.store.getIn(uow, event.orderId);
    if (!order) return;
    const { event: itemEvent, reason } = OUTCOME_EVENTS[event.outcome];
    const touched = order.items.filter((i) => i.offerId === event.offerId);
    for (const item of touched) {
      move(item, itemEvent, reason);
      if (event.outcome !== 'rolled_back') item.offerFinishedAt = event.at;
    }
    await this.settle(uow, order, reason === null ? [] : touched);
  }

  /** A user's own offer for an item of a user listing is out: the item carries it and the order delivers. */
  async userOfferSent(
    uow: UnitOfWork,
    sale: { orderId: string; itemKey: string; offerId: string },
  ): Promise<void> {
    const { order, item } = await this.userItem(uow, sale);
    item.offerId = sale.offerId;
    await this.settle(uow, order, []);
  }

  /** The seller of a user listing could not send it: the item returns (`unavailable`) and is refunded. */
  async userSendFailed(uow: UnitOfWork, sale: { orderId: string; itemKey: string }): Promise<void> {
    const { order, item } = await this.userItem(uow, sale);
    move(item, 'seller_gave_up', 'unavailable');
    await this.settle(uow, order, [item]);
  }

  private async userItem(uow: UnitOfWork, sale: { orderId: string; itemKey: string }) {
    const order = await this.deps.store.getIn(uow, sale.orderId);
    const item = order?.items.find((i) => `${order.id}:${i.position}` === sale.itemKey);
    if (!order || !item) throw new Error(`no order item ${sale.itemKey}`);
    return { order, item };
  }

  /**
   * Releases a held order after its hold (409 not_claimable before, or once it has ended). An order
   * that never held delivers by itself, so its claim is a harmless no-op in every state, as is the
   * claim of any order still pending or delivering.
   */
  claim(accountId: string, orderId: string, appId: number): Promise<OrderRecord> {
    return this.deps.units.run(async (uow) => {
      const order = await this.deps.store.getIn(uow, orderId);
      if (!order || order.accountId !== accountId || order.appId !== appId)
        throw refuse('not_found', `no order ${orderId} in game ${appId} on this account`);
      if (order.status === 'delivering' || order.status === 'pending' || neverHeld(order)) return order;
      if (!isClaimable(order, uow.now))
        throw refuse(
          'not_claimable',
          order.status === 'hold'
            ? 'the order is still inside its trade hold; claim it shortly after hold_until'
            : `the order is ${order.status}; only held orders can be claimed`,
        );
      await this.release(uow, order);
      return order;
    });
  }

  /** Does everything due by `now`, one order per unit of work. */
  async runDue(now: number): Promise<void> {
    for (const { id, accountId, due } of await this.deps.store.dueOrders(now, ORDER_WINDOWS)) {
      if (!due && !this.deps.accounts.account(accountId)?.autoclaim) continue;
      await this.deps.units.run(async (uow) => {
        const order = await this.deps.store.getIn(uow, id);
        if (order) await this.advance(uow, order);
      });
    }
  }

  /** The earliest time from `from` on at which an order has work due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.deps.store.nextDueFrom(from, ORDER_WINDOWS);
  }

  private async advance(uow: UnitOfWork, order: OrderRecord): Promise<void> {
    const now = uow.now;
    const returned: ItemRecord[] = [];
    for (const item of order.items) {
      if (item.status !== 'delivering' || item.offerId !== null) continue;
      if (item.giveUpAt === null || item.giveUpAt > now) continue;
      if (item.sendAt === null || item.sendAt > item.giveUpAt)
        returned.push(move(item, 'seller_gave_up', 'unavailable'));
    }
    const windowEnd = claimWindowEnd(order);
    if (windowEnd !== null && windowEnd <= now)
      for (const item of order.items)
        if (item.status === 'hold') returned.push(move(item, 'claim_window_over', 'expired'));
    const sendable = (i: ItemRecord) =>
      i.status === 'delivering' && i.offerId === null && i.sendAt !== null && i.sendAt <= now;
    const sends = order.items.some(sendable);
    await sendOffer(uow, this.deps.platform, order, sendable);
    const autoclaim = this.deps.accounts.account(order.accountId)?.autoclaim ?? false;
    if (autoclaim && isClaimable({ ...order, status: deriveStatus(order.items) }, now)) {
      await this.release(uow, order);
      if (returned.length === 0) return;
    }
    if (returned.length > 0 || sends) await this.settle(uow, order, returned);
  }

  /** Sends the held items of a claimable order in one offer (about 15 minutes to accept). */
  private async release(uow: UnitOfWork, order: OrderRecord): Promise<void> {
    const held = order.items.filter((i) => i.status === 'hold');
    for (const item of held) {
      move(item, 'claimed', null);
      item.sendAt = uow.now;
    }
    await sendOffer(uow, this.deps.platform, order, (i) => held.includes(i));
    await this.settle(uow, order, []);
  }

  /**
   * Refunds the newly returned items (the unsettled part of the charge comes back first), puts
   * them back on the market with a new listed_at, and stores the order's new state.
   */
  private async settle(uow: UnitOfWork, order: OrderRecord, returned: readonly ItemRecord[]): Promise<void> {
    const now = uow.now;
    if (returned.length > 0) {
      const amount = returned.reduce((sum, i) => sum + i.priceCents, 0);
      const before = order.refundCents ?? 0;
      const pendingPaid = order.chargedCents - order.settledPaidCents;
      const pendingBack = Math.min(amount, Math.max(0, pendingPaid - before));
      await this.deps.funds.post(uow, {
        accountId: order.accountId,
        type: 'refund',
        amountCents: amount,
        settledDeltaCents: amount - pendingBack,
        orderId: order.id,
        description: `refund of ${returned.length} returned item${returned.length === 1 ? '' : 's'} of ${order.id}`,
      });
      order.refundCents = before + amount;
      order.refundedAt = now;
      order.refundPartial = order.items.some((i) => i.status !== 'returned');
      const back = returned
        .map((i) => relisted(i, now))
        .filter((listing) => !this.deps.userSales.isUserListing(listing));
      await this.deps.listings.applyIn(
        uow,
        back.map((listing) => ({ kind: 'add' as const, appId: order.appId, listing })),
      );
    }
    order.status = deriveStatus(order.items);
    order.updatedAt = now;
    await this.deps.store.update(uow, order);
  }
}

function move(item: ItemRecord, event: ItemEvent, reason: ReturnReason | null): ItemRecord {
  item.status = nextItemStatus(item.status, event);
  if (item.status === 'returned') item.returnReason = reason;
  return item;
}

/** The listing of a returned item as it comes back: a new listed_at, released if its lock has ended. */
function relisted(item: ItemRecord, now: number): Listing {
  const listing = JSON.parse(item.listingJson) as Listing;
  const lockOver = listing.tradable_at !== null && Date.parse(listing.tradable_at) <= now;
  const released =
    listing.delivery === 'hold' && lockOver
      ? { delivery: 'instant' as const, tradable: true, tradable_at: null }
      : {};
  return {
    ...listing,
    ...released,
    listed_at: listing.listed_at === null ? null : new Date(now).toISOString(),
  };
}

/** True when no item of the order came from a trade-locked listing: it delivers without a claim. */
function neverHeld(order: OrderRecord): boolean {
  return order.items.every((item) => item.listingDelivery !== 'hold');
}
