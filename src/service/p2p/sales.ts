/**
 * A P2P sale from the buyer's order to the seller's payout, each step one unit of work on the
 * service clock: the seller sends the copy a minute after the sale (trade_pending → trade_sent),
 * the buyer's platform user answers the offer (accepted → verification_hold; declined or timed out
 * → cancelled, the buyer refunded), and when the platform's trade protection ends the sale is
 * sold and the seller is credited exactly seller_payout_usd (a rollback before that cancels it).
 */
import { isApiError } from '../../contract/api-error.js';
import { refuse } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { ListingRecord } from './listing-record.js';
import { type ListingEvent, nextListingStatus } from './listing-states.js';
import type { ListingStore } from './listing-store.js';
import type { BuyerOrders, ClosedOffer, Payouts, SellerPlatform } from './ports.js';

/** How long after the sale the seller's (simulated) platform user sends the trade offer. @default 60000 */
export const SELLER_SEND_DELAY_MS = 60_000;

/** What sales use. */
export interface SalesDeps {
  units: UnitOfWorkRunner;
  store: ListingStore;
  platform: SellerPlatform;
  payouts: Payouts;
  orders: BuyerOrders;
}

/** Rounds of one due pass: send, answer, release. */
const MAX_ROUNDS = 3;

const CLOSED_EVENTS: Record<ClosedOffer['outcome'], { event: ListingEvent; reason: string | null }> = {
  accepted: { event: 'accepted', reason: null },
  declined: { event: 'declined', reason: 'declined' },
  expired: { event: 'expired', reason: 'trade_timeout' },
  rolled_back: { event: 'rolled_back', reason: 'rolled_back' },
};

/** Moves sales along as orders come in, offers close and due times pass. */
export class Sales {
  constructor(private readonly deps: SalesDeps) {
    deps.platform.onOfferClosed((uow, event) => this.offerClosed(uow, event));
  }

  /** A buyer's order took the listing off the shelf (trading's unit of work): the seller is to send. */
  async bought(
    uow: UnitOfWork,
    sale: { orderId: string; itemKey: string; listingId: string; buyerSteamId: string },
  ): Promise<void> {
    const record = await this.deps.store.getIn(uow, sale.listingId);
    if (!record) throw new Error(`no P2P listing ${sale.listingId}`);
    if (record.steamId === sale.buyerSteamId)
      throw refuse(
        'invalid_request',
        `listing ${record.id} is your own P2P listing; it cannot be bought by you`,
      );
    step(record, 'bought', uow.now);
    record.orderId = sale.orderId;
    record.itemKey = sale.itemKey;
    record.buyerSteamId = sale.buyerSteamId;
    record.due = { event: 'send', at: uow.now + SELLER_SEND_DELAY_MS };
    await this.deps.store.update(uow, record);
  }

  /** When the next sale step from `from` on falls due, or null. */
  nextDueFrom(from: number): Promise<number | null> {
    return this.deps.store.nextDueFrom(from);
  }

  /**
   * Does every step due by `now`, earliest first, one listing per unit of work; failures stay due.
   * Offers sent here may have been answered before `now`, and an answer can make a release due, so
   * the platform and the sales go round again (a few times at most) until nothing more falls due.
   */
  async runDue(now: number): Promise<void> {
    const failures: unknown[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await this.deps.store.dueBy(now);
      if (due.length === 0) break;
      for (const id of due) {
        try {
          await this.deps.units.run((uow) => this.fireDue(uow, id, now));
        } catch (error) {
          failures.push(error);
        }
      }
      await this.deps.platform.runDue(now);
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} P2P sale step(s) failed`);
  }

  private async fireDue(uow: UnitOfWork, id: string, now: number): Promise<void> {
    const record = await this.deps.store.getIn(uow, id);
    if (!record?.due || record.due.at > now) return;
    if (record.due.event === 'send') await this.send(uow, record);
    else await this.release(uow, record);
  }

  /** The seller's platform user sends the copy to the buyer; a copy that is gone fails the sale. */
  private async send(uow: UnitOfWork, record: ListingRecord): Promise<void> {
    const sale = { orderId: record.orderId as string, itemKey: record.itemKey as string };
    let offerId: string;
    try {
      ({ offerId } = await this.deps.platform.sendUserOffer(uow, {
        orderId: sale.orderId,
        fromSteamId: record.steamId,
        toSteamId: record.buyerSteamId as string,
        items: [{ assetId: record.assetId, itemKey: sale.itemKey }],
        sentAt: record.due?.at ?? uow.now,
      }));
    } catch (error) {
      if (!isApiError(error)) throw error;
      step(record, 'send_failed', uow.now);
      record.endReason = 'unavailable';
      await this.deps.store.update(uow, record);
      await this.deps.orders.sendFailed(uow, sale);
      return;
    }
    step(record, 'sent', uow.now);
    record.offerId = offerId;
    await this.deps.store.update(uow, record);
    await this.deps.orders.offerSent(uow, { ...sale, offerId });
  }

  /** The verification hold is over: sold, and the seller is credited its payout. */
  private async release(uow: UnitOfWork, record: ListingRecord): Promise<void> {
    step(record, 'released', uow.now);
    await this.deps.store.update(uow, record);
    const payout = record.priceCents - record.commissionCents;
    await this.deps.payouts.post(uow, {
      accountId: record.accountId,
      type: 'sale',
      amountCents: payout,
      settledDeltaCents: payout,
      orderId: record.id,
      description: `P2P sale of ${record.marketHashName} (listing ${record.id}, order ${record.orderId})`,
    });
  }

  /** The seller's offer closed (platform's unit of work): on to the verification hold, or the sale ends. */
  private async offerClosed(uow: UnitOfWork, event: ClosedOffer): Promise<void> {
    if (event.senderSteamId === null) return;
    const record = await this.deps.store.byOfferIn(uow, event.offerId);
    if (!record) return;
    const { event: listingEvent, reason } = CLOSED_EVENTS[event.outcome];
    step(record, listingEvent, event.at);
    record.endReason = reason;
    if (event.outcome === 'accepted')
      record.due = { event: 'release', at: event.at + this.deps.platform.tradeProtectionMs };
    await this.deps.store.update(uow, record);
  }
}

/** Applies one step of the state table at `at`; every step clears the timed step it may have had. */
function step(record: ListingRecord, event: ListingEvent, at: number): void {
  record.status = nextListingStatus(record.status, event);
  record.due = null;
  record.updatedAt = at;
}
