/**
 * Placing an order: the checks that need no transaction, then one unit of work that re-checks the
 * listings, debits the balance, removes the listings from the catalogue (with their `gone`
 * events), inserts the order and its items, sends the first trade offer and stores the receipt
 * its key replays. Any failure rolls all of it back.
 */
import { centsToUsd } from '../../contract/common.js';
import { randomId } from '../core/api-keys.js';
import type { Account } from '../core/caller.js';
import type { Clock } from '../core/clock.js';
import { refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { KeyClaim } from './idempotency.js';
import {
  deliveryEstimate,
  deriveStatus,
  type ItemRecord,
  type OrderRecord,
  orderJson,
} from './order-record.js';
import type { OrderStore } from './order-store.js';
import type {
  AccountSettings,
  Funds,
  LastStep,
  ListingSource,
  LiveListing,
  TradePlatform,
  UserListings,
} from './ports.js';
import { sendOffer } from './send-offer.js';
import type { TradingSettings } from './trading-settings.js';

/** What placing an order may refuse with (besides the refusals of the ports it calls). */
export const PLACEMENT_ERRORS = [
  'concurrent_update',
  'item_unavailable',
  'unsupported_item',
  'cannot_mix_sources',
  'one_external_per_order',
  'price_moved',
  'pending_trades_limit',
  'kyc_required',
] as const;

const refuse = refuseOnly(PLACEMENT_ERRORS);

/** Unaccepted offers a recipient may have before new orders to it are refused. */
export const MAX_PENDING_OFFERS = 10;
/** How long the human seller of an up_to_12h listing has to send it. */
export const SELLER_WINDOW_MS = 12 * 3_600_000;

/** A buy, as validated by the route. */
export interface BuyRequest {
  kind: 'order' | 'market_buy';
  account: Account;
  appId: number;
  listingIds: string[];
  customId: string | null;
  maxPriceCents: number | null;
  autoclaim: boolean | undefined;
  /** Tells two requests with one key apart (the route derives it from what was sent). */
  fingerprint: string;
  /** Where the items go: the trade URL's owner, or the buyer's linked account (null when none is linked). */
  steamId: string | null;
  /** External delivery is funded from settled money only. */
  settledOnly: boolean;
}

/** A buy that passed the buyer's checks: its items have somewhere to go. */
export type CheckedBuy = BuyRequest & { steamId: string };

/** What placing an order uses. */
export interface PlacementDeps {
  clock: Clock;
  units: UnitOfWorkRunner;
  listings: ListingSource;
  funds: Funds;
  accounts: Pick<AccountSettings, 'update'>;
  platform: TradePlatform;
  store: OrderStore;
  tradingSettings: TradingSettings;
  userSales: UserListings;
}

/** A placed order and its receipt: the order as first answered, which its key replays. */
export interface Placed {
  order: OrderRecord;
  receipt: string;
}

/** Places orders; listings of orders in flight are reserved so a racing order is told at once. */
export class OrderPlacement {
  private readonly reserved = new Set<string>();

  constructor(private readonly deps: PlacementDeps) {}

  /**
   * Places the order (its receipt stored with the key, when one is claimed); `lastStep` runs in
   * its unit of work once everything is written.
   */
  async place(request: CheckedBuy, claim: KeyClaim | null, lastStep: LastStep): Promise<Placed> {
    if (request.listingIds.some((id) => this.reserved.has(id)))
      throw refuse('concurrent_update', 'another order is buying the same listing; retry in a second', {
        retry_after_seconds: 1,
      });
    const live = this.liveListings(request);
    checkSources(live);
    this.checkPrice(request, live);
    this.checkPendingOffers(request, live);
    for (const id of request.listingIds) this.reserved.add(id);
    try {
      return await this.deps.units.run((uow) => this.placeIn(uow, request, claim, lastStep));
    } finally {
      for (const id of request.listingIds) this.reserved.delete(id);
    }
  }

  private async placeIn(
    uow: UnitOfWork,
    request: CheckedBuy,
    claim: KeyClaim | null,
    lastStep: LastStep,
  ): Promise<Placed> {
    // Again inside the transaction: its earlier units may have sold a listing or sent offers.
    const live = this.liveListings(request, (id) => this.deps.listings.getIn(uow, id));
    checkSources(live);
    this.checkPendingOffers(request, live, uow);
    const total = live.reduce((sum, l) => sum + l.priceCents, 0);
    await this.checkVerification(uow, request, total);
    const order = this.newOrder(request, live, uow.now);
    const paid = await this.deps.funds.debit(uow, {
      accountId: request.account.id,
      type: 'purchase',
      amountCents: total,
      orderId: order.id,
      description: `order ${order.id}: ${live.length} item${live.length === 1 ? '' : 's'}`,
      settledOnly: request.settledOnly,
    });
    order.settledPaidCents = -paid.settledDeltaCents;
    await this.deps.listings.applyIn(
      uow,
      live.map((l) => ({ kind: 'remove' as const, id: l.id })),
    );
    await sendOffer(uow, this.deps.platform, order, (i) => i.status === 'delivering' && i.sendAt === uow.now);
    for (const [position, l] of live.entries())
      if (this.deps.userSales.isUserListing(l.listing))
        await this.deps.userSales.bought(uow, {
          orderId: order.id,
          itemKey: `${order.id}:${position}`,
          listingId: l.id,
          buyerSteamId: request.steamId,
        });
    order.status = deriveStatus(order.items);
    if (request.autoclaim !== undefined && request.autoclaim !== request.account.autoclaim)
      await this.deps.accounts.update(uow, request.account.id, { autoclaim: request.autoclaim });
    const receipt = JSON.stringify(orderJson(order, uow.now));
    await this.deps.store.insert(
      uow,
      order,
      claim === null ? null : { fingerprint: claim.fingerprint, receipt },
    );
    claim?.stored(uow);
    lastStep(uow);
    return { order, receipt };
  }

  /** The live listings of the request, or 409 item_unavailable naming the ones that are gone. */
  private liveListings(
    request: CheckedBuy,
    get: (id: string) => LiveListing | undefined = (id) => this.deps.listings.get(id),
  ): LiveListing[] {
    const found = request.listingIds.map(get);
    const unavailable = request.listingIds.filter((_, i) => found[i]?.appId !== request.appId);
    if (unavailable.length > 0)
      throw refuse('item_unavailable', 'a listing was sold or is not listed in this game', {
        unavailable_ids: unavailable,
      });
    return found as LiveListing[];
  }

  private checkPrice(request: CheckedBuy, live: readonly LiveListing[]): void {
    const total = live.reduce((sum, l) => sum + l.priceCents, 0);
    if (request.maxPriceCents === null || total <= request.maxPriceCents) return;
    throw refuse('price_moved', 'the live total is above max_price_usd; nothing was charged', {
      current_total_usd: centsToUsd(total),
      max_price_usd: centsToUsd(request.maxPriceCents),
    });
  }

  private checkPendingOffers(request: CheckedBuy, live: readonly LiveListing[], uow?: UnitOfWork): void {
    const sendsNow = live.some((l) => deliveryOf(l, uow?.now ?? this.deps.clock.now()) === 'instant');
    if (!sendsNow || this.deps.platform.pendingOfferCount(request.steamId, uow) < MAX_PENDING_OFFERS) return;
    throw refuse('pending_trades_limit', 'the recipient has too many unaccepted trade offers', {
      limit: MAX_PENDING_OFFERS,
    });
  }

  private async checkVerification(uow: UnitOfWork, request: CheckedBuy, total: number): Promise<void> {
    const threshold = this.deps.tradingSettings.kycThresholdCents(request.account.id);
    if (threshold === null) return;
    const purchased = await this.deps.store.netPurchasedCents(uow, request.account.id);
    if (purchased + total <= threshold) return;
    throw refuse('kyc_required', 'this purchase needs identity verification on the website first', {
      threshold_usd: centsToUsd(threshold),
    });
  }

  private newOrder(request: CheckedBuy, live: readonly LiveListing[], now: number): OrderRecord {
    const seq = this.deps.store.takeSeq();
    const items = live.map((l, position) =>
      newItem(l, position, now, this.deps.platform, this.deps.userSales.isUserListing(l.listing)),
    );
    return {
      id: `ord_${request.appId}_${randomId(16)}`,
      seq,
      accountId: request.account.id,
      appId: request.appId,
      kind: request.kind,
      steamId: request.steamId,
      customId: request.customId,
      status: 'pending',
      chargedCents: live.reduce((sum, l) => sum + l.priceCents, 0),
      settledPaidCents: 0,
      refundCents: null,
      refundPartial: null,
      refundedAt: null,
      ...deliveryEstimate(request.appId, items, now),
      createdAt: now,
      updatedAt: now,
      items,
    };
  }
}

/** Refuses items the API cannot buy, and orders that mix external-market and platform items or hold two external ones. */
function checkSources(live: readonly LiveListing[]): void {
  const unsupported = live.filter((l) => l.listing.api_purchasable === false).map((l) => l.id);
  if (unsupported.length > 0)
    throw refuse(
      'unsupported_item',
      'these items cannot be bought through the API; buy them on the website',
      {
        unsupported_ids: unsupported,
      },
    );
  const external = live.filter((l) => l.listing.source === 'external').length;
  if (external > 0 && external < live.length)
    throw refuse('cannot_mix_sources', 'an order holds external-market items or platform items, not both');
  if (external > 1)
    throw refuse(
      'one_external_per_order',
      'an order may hold one external-market item; place one order each',
    );
}

/** A listing's delivery, with a lock that has already ended counted as instant. */
function deliveryOf(l: LiveListing, now: number): 'instant' | 'up_to_12h' | 'hold' {
  const { delivery, tradable_at } = l.listing;
  if (delivery !== 'hold') return delivery;
  return tradable_at !== null && Date.parse(tradable_at) > now ? 'hold' : 'instant';
}

/** A new order item; a user's listing waits for its seller's own offer (trading neither sends nor gives up on it). */
function newItem(
  l: LiveListing,
  position: number,
  now: number,
  platform: TradePlatform,
  userListing: boolean,
): ItemRecord {
  const delivery = deliveryOf(l, now);
  const held = delivery === 'hold';
  const tradableAt = held ? Date.parse(l.listing.tradable_at as string) : null;
  const sellerDelay = userListing ? null : delivery === 'up_to_12h' ? platform.sellerDelayMs(l.id) : 0;
  return {
    position,
    listingId: l.id,
    listingJson: JSON.stringify(l.listing),
    marketHashName: l.listing.market_hash_name,
    priceCents: l.priceCents,
    listingDelivery: delivery,
    status: held ? 'hold' : 'delivering',
    tradableAt,
    returnReason: null,
    offerId: null,
    offerFinishedAt: null,
    sendAt: held || sellerDelay === null ? null : now + sellerDelay,
    // A held item's claim window is its order's (see claimWindowEnd), never its own.
    giveUpAt: delivery === 'up_to_12h' && !userListing ? now + SELLER_WINDOW_MS : null,
  };
}
