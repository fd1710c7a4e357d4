/**
 * What Instant Sell needs from the rest of the service, as narrow interfaces: the game platform
 * (trade URLs, inventories, the seller's offers to the bots), the market price of an item, and the
 * ledger. The composition root passes the real parts; this feature never imports them.
 */

import type { SaleMovement } from '../core/sale-movement.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** A copy at home in a platform inventory, as Instant Sell reads it (times in epoch ms). */
export interface SellableCopy {
  assetId: string;
  appId: number;
  marketHashName: string;
  /** The JSON of the listing the copy's description comes from (category, tradable, tradable_at…). */
  listingJson: string;
}

/** A full read of an inventory: the proof, and the copies at home when it is ready. */
export interface InventorySnapshot {
  proof:
    | { status: 'ready'; checkedAt: number }
    | { status: 'pending'; retryAfterMs: number }
    | { status: 'blocked'; code: string };
  copies: SellableCopy[];
}

/** How a platform offer ended, as told to its listeners. */
export interface ClosedOffer {
  offerId: string;
  /** What the offer was sent for: the sell order id. */
  orderId: string;
  outcome: 'accepted' | 'declined' | 'expired' | 'rolled_back';
  /** Epoch ms on the service clock at which the step happened. */
  at: number;
}

/** The simulated game platform as Instant Sell uses it. */
export interface SellPlatform {
  resolveTradeUrl(url: string): { steamId: string } | { problem: string };
  /** A full read of the inventory of a platform account, as the platform answers it now. */
  readInventory(steamId: string): Promise<InventorySnapshot>;
  /** A copy at home in an inventory as the unit of work sees it (not carried by an open offer). */
  copyIn(uow: UnitOfWork, steamId: string, assetId: string): Promise<SellableCopy | undefined>;
  /** False when the seller is trade banned: the platform refuses every offer from it. */
  canTrade(uow: UnitOfWork, steamId: string): Promise<boolean>;
  /** Sends the seller's copies to a bot in an offer the seller answers (by the seller's offers behaviour). */
  requestItems(
    uow: UnitOfWork,
    offer: { orderId: string; sellerSteamId: string; botSteamId: string; assetIds: string[] },
  ): Promise<{ offerId: string }>;
  /** Unanswered offers to a recipient (a bot), with those the unit of work's transaction sent. */
  pendingOfferCount(steamId: string, uow?: UnitOfWork): number;
  /** Adds a listener called inside the unit of work that closes or rolls back an offer. */
  onOfferClosed(listener: (uow: UnitOfWork, event: ClosedOffer) => Promise<void>): void;
}

/** Market prices: the cheapest live listing of an item that the marketplace itself offers. */
export interface MarketPrices {
  /** The market price in cents of an item of a game, or undefined when no listing of it is live. */
  priceCents(appId: number, marketHashName: string): number | undefined;
}

/** The ledger as Instant Sell moves money on it. */
export interface SellFunds {
  /** Posts a `sale` movement: a sell order's credit, paid settled once its trade protection is over. */
  post(uow: UnitOfWork, movement: SaleMovement): Promise<unknown>;
}
