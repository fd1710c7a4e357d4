/**
 * What P2P needs from the rest of the service, as narrow interfaces: the seller's platform
 * inventory and user-sent trade offers (the platform), the public catalogue and its market prices
 * (the market), the ledger and accounts, and the buyer's order (trading). The composition root
 * passes the real parts; P2P never imports them.
 */
import type { Listing } from '../../contract/listing.js';
import type { Account } from '../core/caller.js';
import type { SaleMovement } from '../core/sale-movement.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/** One copy at home in a seller's inventory. */
export interface SellerCopy {
  assetId: string;
  appId: number;
  marketHashName: string;
  /** The item's listing JSON (wear, float, stickers, image…). */
  listingJson: string;
  revision: string;
}

/** The outcome of a full inventory read. */
export type Proof =
  | { status: 'ready'; checkedAt: number }
  | { status: 'pending'; retryAfterMs: number }
  | { status: 'blocked'; code: string };

/** A closed (or rolled back) trade offer, as the platform tells it. */
export interface ClosedOffer {
  offerId: string;
  orderId: string;
  outcome: 'accepted' | 'declined' | 'expired' | 'rolled_back';
  senderSteamId: string | null;
  at: number;
}

/** The simulated platform, as P2P uses it. */
export interface SellerPlatform {
  /** How long after acceptance a trade can be rolled back (the verification hold). */
  readonly tradeProtectionMs: number;
  /** A full read of the inventory: the proof, and the copies when it is ready. */
  readInventory(steamId: string): Promise<{ proof: Proof; copies: SellerCopy[] }>;
  /** The proof of a full read inside the unit of work. */
  proofIn(uow: UnitOfWork, steamId: string): Promise<Proof>;
  /** A copy at home as the unit of work sees it. */
  copyIn(uow: UnitOfWork, steamId: string, assetId: string): Promise<SellerCopy | undefined>;
  /** The seller sends copies to the buyer at `sentAt`; refused (an ApiError) when it cannot (copy gone, banned). */
  sendUserOffer(
    uow: UnitOfWork,
    offer: {
      orderId: string;
      fromSteamId: string;
      toSteamId: string;
      items: { assetId: string; itemKey: string }[];
      sentAt: number;
    },
  ): Promise<{ offerId: string }>;
  /** Lets the platform do what fell due by `now` (the offers just sent may already have been answered). */
  runDue(now: number): Promise<void>;
  onOfferClosed(listener: (uow: UnitOfWork, event: ClosedOffer) => Promise<void>): void;
}

/** A change to the public catalogue. */
export type ShelfChange = { kind: 'add'; appId: number; listing: Listing } | { kind: 'remove'; id: string };

/** The public catalogue, as P2P puts its listings on the shelf and takes them off. */
export interface Shelf {
  /** Adds or replaces (a reprice) a listing, or removes one, in the unit of work. */
  applyIn(uow: UnitOfWork, changes: readonly ShelfChange[]): Promise<unknown>;
  /** The market price of an item in cents (the cheapest live ask of the marketplace's own), or null. */
  marketCents(appId: number, marketHashName: string): number | null;
}

/** The ledger, for the seller's payout. */
export interface Payouts {
  post(uow: UnitOfWork, movement: SaleMovement): Promise<unknown>;
}

/** Account look-ups. */
export interface SellerAccounts {
  account(id: string): Account | undefined;
}

/** The buyer's order, as the seller's delivery moves it (trading implements it). */
export interface BuyerOrders {
  /** The seller's offer for the order item is out: the item shows it and the order is delivering. */
  offerSent(uow: UnitOfWork, sale: { orderId: string; itemKey: string; offerId: string }): Promise<void>;
  /** The seller could not send: the item returns (`unavailable`) and the buyer is refunded. */
  sendFailed(uow: UnitOfWork, sale: { orderId: string; itemKey: string }): Promise<void>;
}
