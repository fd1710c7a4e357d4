/** The P2P feature: opening it on the ports it declares, its routes, and the due task that moves sales on. */
import type { Listing } from '../../contract/listing.js';
import type { Database } from '../../shared/database.js';
import type { DueWork } from '../core/due-work.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Feature } from '../http/feature.js';
import { P2P } from './p2p.js';
import { registerP2PRoutes } from './p2p-routes.js';
import type { BuyerOrders, Payouts, SellerCopy, SellerPlatform, Shelf } from './ports.js';

/** The game platform as P2P is opened on it (the platform feature's own shape). */
export interface P2PPlatform extends Pick<SellerPlatform, 'sendUserOffer' | 'runDue' | 'onOfferClosed'> {
  inventories: {
    read: SellerPlatform['readInventory'];
    proofIn: SellerPlatform['proofIn'];
    copyIn: SellerPlatform['copyIn'];
  };
}

/** Trading as P2P is opened on it: the orders of user listings, which P2P sells through it. */
export interface P2PTrading {
  userOfferSent: BuyerOrders['offerSent'];
  userSendFailed: BuyerOrders['sendFailed'];
  sellUserListingsWith(seller: {
    isUserListing(listing: Listing): boolean;
    bought(
      uow: UnitOfWork,
      sale: { orderId: string; itemKey: string; listingId: string; buyerSteamId: string },
    ): Promise<void>;
  }): void;
}

/** What opening P2P needs. */
export interface OpenP2PDeps {
  db: Database;
  units: UnitOfWorkRunner;
  due: DueWork;
  platform: P2PPlatform;
  /** How long after acceptance a trade can be rolled back (the verification hold). */
  tradeProtectionMs: number;
  shelf: Shelf;
  payouts: Payouts;
  trading: P2PTrading;
}

/** P2P opened: the feature's operations, and its plugins. */
export interface OpenP2P {
  p2p: P2P;
  feature: Feature;
}

/**
 * Builds P2P and loads it, has trading sell its listings through it, registers its due task
 * ('p2p sales') on `due`, and returns it with its plugins.
 */
export async function openP2P(deps: OpenP2PDeps): Promise<OpenP2P> {
  const { trading } = deps;
  const p2p = new P2P({
    db: deps.db,
    units: deps.units,
    platform: sellerPlatform(deps.platform, deps.tradeProtectionMs),
    shelf: deps.shelf,
    payouts: deps.payouts,
    orders: {
      offerSent: (uow, sale) => trading.userOfferSent(uow, sale),
      sendFailed: (uow, sale) => trading.userSendFailed(uow, sale),
    },
  });
  await p2p.load();
  trading.sellUserListingsWith({
    isUserListing: (listing) => p2p.isUserListing(listing),
    bought: (uow, sale) => p2p.sales.bought(uow, sale),
  });
  deps.due.register(
    'p2p sales',
    (now) => p2p.sales.runDue(now),
    (from) => p2p.sales.nextDueFrom(from),
  );
  const feature: Feature = {
    v1: (app) => registerP2PRoutes(app, p2p),
    tags: {
      p2p: "Selling from the account's own platform inventory at its own price: the inventory with its proof, publishing, repricing, delisting and the account's listings",
    },
  };
  return { p2p, feature };
}

/** The platform as P2P's own code uses it: copies carrying only what P2P reads. */
function sellerPlatform(platform: P2PPlatform, tradeProtectionMs: number): SellerPlatform {
  return {
    tradeProtectionMs,
    async readInventory(steamId) {
      const read = await platform.inventories.read(steamId);
      return { proof: read.proof, copies: read.copies.map(sellerCopy) };
    },
    proofIn: (uow, steamId) => platform.inventories.proofIn(uow, steamId),
    async copyIn(uow, steamId, assetId) {
      const copy = await platform.inventories.copyIn(uow, steamId, assetId);
      return copy && sellerCopy(copy);
    },
    sendUserOffer: (uow, offer) => platform.sendUserOffer(uow, offer),
    runDue: (now) => platform.runDue(now),
    onOfferClosed: (listener) => platform.onOfferClosed(listener),
  };
}

function sellerCopy(copy: SellerCopy): SellerCopy {
  return {
    assetId: copy.assetId,
    appId: copy.appId,
    marketHashName: copy.marketHashName,
    listingJson: copy.listingJson,
    revision: copy.revision,
  };
}
