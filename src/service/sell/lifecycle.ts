/**
 * What happens to a sell order after it is placed, each step one unit of work on the service
 * clock: the bots send their offers (pending → offer_sent), the seller answers them (→ received,
 * the credit owed but not yet in the balance; or failed), rollbacks during the trade protection
 * reduce what is owed, and the end of the protection pays it to the balance, settled, as one `sale`
 * row (→ completed). Money the platform could still take back never reaches the balance.
 */
import { SELL_LIMITS } from '../../contract/sell.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { ClosedOffer, SellFunds, SellPlatform } from './ports.js';
import { botsFor, pickBots, splitBasket } from './sell-bots.js';
import { type SellItemRecord, type SellOrderRecord, sumOf } from './sell-order-record.js';
import type { SellOrderStore } from './sell-order-store.js';
import { nextSellOfferStatus, nextSellStatus, type SellEvent } from './sell-states.js';

/** The platform's trade protection: an accepted trade can be rolled back for 8 days, then the credit settles. */
const TRADE_PROTECTION_MS = SELL_LIMITS.settlementDays * 86_400_000;

/** What the lifecycle uses. */
export interface SellLifecycleDeps {
  units: UnitOfWorkRunner;
  orders: SellOrderStore;
  platform: SellPlatform;
  funds: SellFunds;
}

/** Moves sell orders along as the clock passes and offers close. */
export class SellLifecycle {
  constructor(private readonly deps: SellLifecycleDeps) {
    deps.platform.onOfferClosed((uow, event) => this.offerClosed(uow, event));
  }

  /** Does everything due by `now`, one order per unit of work; failures are thrown together at the end. */
  async runDue(now: number): Promise<void> {
    const failures: unknown[] = [];
    for (const id of await this.deps.orders.dueBy(now)) {
      try {
        await this.deps.units.run(async (uow) => {
          const order = await this.deps.orders.getIn(uow, id);
          if (order?.status === 'pending' && order.sendAt !== null && order.sendAt <= uow.now)
            await this.sendOffers(uow, order);
          else if (order?.status === 'received' && order.settlesAt !== null && order.settlesAt < uow.now)
            await this.settle(uow, order);
        });
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0)
      throw new AggregateError(failures, `${failures.length} sell order(s) failed to move on; they stay due`);
  }

  /** Sends the basket's copies still at home to up to 3 bots, or fails the order without sending anything. */
  private async sendOffers(uow: UnitOfWork, order: SellOrderRecord): Promise<void> {
    for (const item of order.items) {
      if (item.status !== 'pending') continue;
      if (!(await this.deps.platform.copyIn(uow, order.steamId, item.assetId))) item.status = 'unavailable';
    }
    const sendable = order.items.filter((i) => i.status === 'pending');
    if (sendable.length === 0) return this.fail(uow, order, 'not_sent', 'items_unavailable');
    if (order.minTotalCents !== null && sumOf(sendable, ['pending']) < order.minTotalCents)
      return this.fail(uow, order, 'not_sent', 'below_minimum');
    const parts = splitBasket(sendable, botsFor(sendable.length));
    const bots = pickBots(parts.length, (steamId) => this.deps.platform.pendingOfferCount(steamId, uow));
    // A trade-banned seller's offers would be refused: fail before any offer writes anything.
    if (!(await this.deps.platform.canTrade(uow, order.steamId)))
      return this.fail(uow, order, 'not_sent', 'cannot_trade');
    for (const [index, part] of parts.entries()) {
      const bot = bots[index];
      if (!bot) throw new Error('the bot network has fewer bots than a basket may take');
      const assetIds = part.map((item) => item.assetId);
      const { offerId } = await this.deps.platform.requestItems(uow, {
        orderId: order.id,
        sellerSteamId: order.steamId,
        botSteamId: bot.steam_id,
        assetIds,
      });
      for (const item of part) Object.assign(item, { status: 'offered', offerId });
      order.offers.push({ offerId, bot, assetIds, status: 'sent', acceptedAt: null });
    }
    order.sendAt = null;
    await this.store(uow, order, 'offers_sent');
  }

  /** Applies a closed (or rolled back) bot offer to its sell order, inside the platform's unit of work. */
  async offerClosed(uow: UnitOfWork, event: ClosedOffer): Promise<void> {
    if (!event.orderId.startsWith('so_')) return;
    const order = await this.deps.orders.getIn(uow, event.orderId);
    const offer = order?.offers.find((o) => o.offerId === event.offerId);
    if (!order || !offer) return;
    offer.status = nextSellOfferStatus(offer.status, event.outcome);
    const items = order.items.filter((i) => i.offerId === offer.offerId);
    if (event.outcome === 'rolled_back') return this.reverse(uow, order, items);
    if (event.outcome === 'accepted') offer.acceptedAt = event.at;
    for (const item of items) item.status = event.outcome === 'accepted' ? 'received' : 'returned';
    if (order.offers.some((o) => o.status === 'sent')) return this.store(uow, order, null);
    const received = sumOf(order.items, ['received']);
    if (received === 0) {
      const declined = order.offers.some((o) => o.status === 'declined');
      return this.fail(uow, order, 'none_received', declined ? 'declined' : 'expired');
    }
    const lastAccepted = Math.max(...order.offers.map((o) => o.acceptedAt ?? 0));
    order.settlesAt = lastAccepted + TRADE_PROTECTION_MS;
    order.creditedCents = received;
    await this.store(uow, order, 'received');
  }

  /** A rolled-back trade: its items are reversed and the order owes nothing for them. */
  private async reverse(uow: UnitOfWork, order: SellOrderRecord, items: SellItemRecord[]): Promise<void> {
    const reversed = items.filter((i) => i.status === 'received');
    for (const item of reversed) item.status = 'reversed';
    if (order.status !== 'received') return this.store(uow, order, null);
    order.creditedCents -= sumOf(reversed, ['reversed']);
    if (sumOf(order.items, ['received']) > 0) return this.store(uow, order, null);
    await this.fail(uow, order, 'all_reversed', 'rolled_back');
  }

  /** The trade protection is over: the credit is paid to the balance, settled, as one `sale` row. */
  private async settle(uow: UnitOfWork, order: SellOrderRecord): Promise<void> {
    await this.deps.funds.post(uow, {
      accountId: order.accountId,
      type: 'sale',
      amountCents: order.creditedCents,
      settledDeltaCents: order.creditedCents,
      orderId: order.id,
      description: `Instant Sell ${order.id}: ${countOf(order.items, 'received')} received by the bots; paid after the trade protection`,
    });
    order.settledCents = order.creditedCents;
    await this.store(uow, order, 'protection_over');
  }

  private async fail(uow: UnitOfWork, order: SellOrderRecord, event: SellEvent, reason: string) {
    for (const item of order.items) if (item.status === 'pending') item.status = 'not_sent';
    order.failureReason = reason;
    order.sendAt = null;
    await this.store(uow, order, event);
  }

  /** Applies `event` (null: the status stays) and stores the order. */
  private async store(uow: UnitOfWork, order: SellOrderRecord, event: SellEvent | null): Promise<void> {
    if (event !== null) order.status = nextSellStatus(order.status, event);
    order.updatedAt = uow.now;
    await this.deps.orders.update(uow, order);
  }
}

function countOf(items: readonly SellItemRecord[], status: SellItemRecord['status']): string {
  const n = items.filter((i) => i.status === status).length;
  return `${n} item${n === 1 ? '' : 's'}`;
}
