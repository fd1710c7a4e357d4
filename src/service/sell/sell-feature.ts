/** The Instant Sell feature: opening it on the ports it declares, its routes, and its due work (offers to send, credits to settle). */
import type { DueWork } from '../core/due-work.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { Feature } from '../http/feature.js';
import { InstantSell, type InstantSellDeps } from './instant-sell.js';
import type { ClosedOffer, InventorySnapshot, SellableCopy, SellPlatform } from './ports.js';
import { registerSellRoutes } from './sell-routes.js';

/** The game platform as Instant Sell is opened on it (the platform feature's own shape). */
export interface InstantSellPlatform {
  resolveTradeUrl(url: string): { steamId: string } | { problem: string };
  inventories: {
    read(steamId: string): Promise<InventorySnapshot>;
    copyIn(uow: UnitOfWork, steamId: string, assetId: string): Promise<SellableCopy | undefined>;
    canTrade(uow: UnitOfWork, steamId: string): Promise<boolean>;
  };
  sendUserOffer(
    uow: UnitOfWork,
    offer: {
      orderId: string;
      fromSteamId: string;
      toSteamId: string;
      items: { assetId: string; itemKey: string }[];
      answeredBy: 'sender';
    },
  ): Promise<{ offerId: string }>;
  pendingOfferCount(steamId: string, uow?: UnitOfWork): number;
  onOfferClosed(listener: (uow: UnitOfWork, event: ClosedOffer) => Promise<void>): void;
}

/** What opening Instant Sell needs. */
export interface OpenInstantSellDeps extends Omit<InstantSellDeps, 'platform'> {
  due: DueWork;
  platform: InstantSellPlatform;
  /** Where the balance hears of money owed outside it: a received order's credit until it settles. */
  incoming: { add(reader: (accountId: string) => Promise<number>): void };
}

/** Instant Sell opened: the feature's operations, and its plugins. */
export interface OpenInstantSell {
  sell: InstantSell;
  feature: Feature;
}

/**
 * Builds Instant Sell, registers its due task ('sell orders') on `due` and the credits inside the
 * trade protection on `incoming`, and returns it with its plugins.
 */
export function openInstantSell(deps: OpenInstantSellDeps): OpenInstantSell {
  const sell = new InstantSell({ ...deps, platform: sellPlatform(deps.platform) });
  deps.incoming.add((accountId) => sell.orders.creditInProtection(accountId));
  deps.due.register(
    'sell orders',
    (now) => sell.runDue(now),
    (from) => sell.nextDueFrom(from),
  );
  const feature: Feature = {
    v1: (app) => registerSellRoutes(app, sell),
    tags: {
      sell: 'Instant Sell (invite-only): quotes of a platform inventory, sell orders to the bots, their lifecycle and settlement',
    },
  };
  return { sell, feature };
}

/** The platform as Instant Sell's own code uses it: the seller's copies go to a bot in an offer the seller answers. */
function sellPlatform(platform: InstantSellPlatform): SellPlatform {
  return {
    resolveTradeUrl: (url) => platform.resolveTradeUrl(url),
    async readInventory(steamId) {
      const read = await platform.inventories.read(steamId);
      return { proof: read.proof, copies: read.copies };
    },
    copyIn: (uow, steamId, assetId) => platform.inventories.copyIn(uow, steamId, assetId),
    canTrade: (uow, steamId) => platform.inventories.canTrade(uow, steamId),
    async requestItems(uow, offer) {
      const sent = await platform.sendUserOffer(uow, {
        orderId: offer.orderId,
        fromSteamId: offer.sellerSteamId,
        toSteamId: offer.botSteamId,
        items: offer.assetIds.map((assetId) => ({ assetId, itemKey: `${offer.orderId}:${assetId}` })),
        answeredBy: 'sender',
      });
      return { offerId: sent.offerId };
    },
    pendingOfferCount: (steamId, uow) => platform.pendingOfferCount(steamId, uow),
    onOfferClosed: (listener) =>
      platform.onOfferClosed((uow, event) =>
        listener(uow, {
          offerId: event.offerId,
          orderId: event.orderId,
          outcome: event.outcome,
          at: event.at,
        }),
      ),
  };
}
