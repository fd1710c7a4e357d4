/**
 * What trading needs from the rest of the service, as narrow interfaces: live listings (the
 * market's catalogue), money (the accounts' ledger and settings) and the game platform. The
 * composition root passes the real parts; trading never imports them.
 */
import type { Listing } from '../../contract/listing.js';
import type { Account } from '../core/caller.js';
import type { UnitOfWork } from '../core/unit-of-work.js';

/**
 * What the ports refuse an order with (the ledger's debit, a user listing its own seller buys):
 * the buy routes document these with trading's own.
 */
export const PORT_ERRORS = [
  'insufficient_balance',
  'insufficient_settled_balance',
  'invalid_request',
] as const;

/** A live listing as trading reads it. */
export interface LiveListing {
  readonly id: string;
  readonly appId: number;
  readonly priceCents: number;
  readonly listing: Listing;
}

/** A change to the live set: a bought listing leaves, a returned one comes back. */
export type CatalogueChange =
  | { kind: 'add'; appId: number; listing: Listing }
  | { kind: 'remove'; id: string };

/** The live catalogue. */
export interface ListingSource {
  get(id: string): LiveListing | undefined;
  /** The live listing as the unit of work sees it (earlier units of its transaction included). */
  getIn(uow: UnitOfWork, id: string): LiveListing | undefined;
  /** Applies changes in the unit of work (once per unit of work); the index follows the commit. */
  applyIn(uow: UnitOfWork, changes: readonly CatalogueChange[]): Promise<unknown>;
}

/** The ledger and the account settings trading changes. */
export interface Funds {
  /** Spends from the balance (pending funds first unless `settledOnly`); refused whole when short. */
  debit(
    uow: UnitOfWork,
    debit: {
      accountId: string;
      type: 'purchase';
      amountCents: number;
      orderId: string;
      description: string;
      settledOnly?: boolean;
    },
  ): Promise<{ settledDeltaCents: number }>;
  /** Posts a credit (a refund) with the settled part it restores. */
  post(
    uow: UnitOfWork,
    movement: {
      accountId: string;
      type: 'refund';
      amountCents: number;
      settledDeltaCents: number;
      orderId: string;
      description: string;
    },
  ): Promise<unknown>;
}

/** Account settings trading and its sandbox controls change. */
export type AccountSettingsChange = Partial<
  Pick<Account, 'status' | 'autoclaim' | 'instantSell' | 'externalBuy' | 'steamId'>
>;

/** Account look-ups and settings (autoclaim is sticky on the account). */
export interface AccountSettings {
  account(id: string): Account | undefined;
  update(uow: UnitOfWork, accountId: string, change: AccountSettingsChange): Promise<Account>;
}

/** An item leaving the bots in a trade offer. */
export interface OfferItem {
  itemKey: string;
  appId: number;
  marketHashName: string;
  listingId: string;
  listingJson: string;
}

/** How an offer ended. */
export type OfferOutcome = 'accepted' | 'declined' | 'expired' | 'rolled_back';

/** An offer that closed (or, for `rolled_back`, was reversed after acceptance). */
export interface OfferClosed {
  offerId: string;
  orderId: string;
  steamId: string;
  outcome: OfferOutcome;
  at: number;
  itemKeys: string[];
}

/** The simulated game platform. */
export interface TradePlatform {
  sendOffer(
    uow: UnitOfWork,
    offer: { orderId: string; steamId: string; items: OfferItem[] },
  ): Promise<{ offerId: string; sentAt: number; expiresAt: number }>;
  /** Unanswered offers to a recipient, with those the unit of work's transaction sent. */
  pendingOfferCount(steamId: string, uow?: UnitOfWork): number;
  onOfferClosed(listener: (uow: UnitOfWork, event: OfferClosed) => Promise<void>): void;
  resolveTradeUrl(url: string): { steamId: string } | { problem: string };
  /** After how long the human seller of an up_to_12h listing sends it, or null when never. */
  sellerDelayMs(listingId: string): number | null;
}

/** What the sandbox controls of trading ask the platform. */
export interface SandboxPlatform {
  offersOf(steamId: string): Promise<unknown[]>;
  inventoryOf(steamId: string): Promise<unknown[]>;
  setUserBehaviour(
    uow: UnitOfWork,
    steamId: string,
    behaviour: { offers?: 'accept' | 'decline' | 'ignore'; acceptAfterSeconds?: number },
  ): Promise<void>;
  /** How the platform shows the user's inventory (private and trade_banned block its proof). */
  setInventoryVisibility(
    uow: UnitOfWork,
    steamId: string,
    visibility: 'ready' | 'private' | 'trade_banned',
  ): Promise<void>;
}

/** Listings users sell from their own inventories (P2P): the seller's own trade offer delivers them. */
export interface UserListings {
  /** True when a user sells the listing: trading sends no bot offer for it and never puts it back on the market. */
  isUserListing(listing: Listing): boolean;
  /** Told in the order's unit of work that a user's listing was bought; the seller is then to send it. */
  bought(
    uow: UnitOfWork,
    sale: { orderId: string; itemKey: string; listingId: string; buyerSteamId: string },
  ): Promise<void>;
}

/** The last step of placing an order, inside its unit of work once everything is written: a throw rolls it all back. */
export type LastStep = (uow: UnitOfWork) => void;

/**
 * Wraps every placement from outside (the sandbox's armed faults fill it): it may refuse before
 * placing, place with a last step of its own, or answer otherwise after placing.
 */
export interface PlacementWrapper {
  around<T>(place: (lastStep: LastStep) => Promise<T>): Promise<T>;
}

/** Places as asked: what runs when nothing wraps placement. */
export const PLAIN_PLACEMENT: PlacementWrapper = { around: (place) => place(() => undefined) };

/** An order just written (placed or changed), as listeners of its writes see it. */
export interface WrittenOrder {
  id: string;
  accountId: string;
  /** The order exactly as GET /orders/{id} answers it at the write's instant (rendered on demand). */
  render(): string;
}

/** Told of every order write inside its unit of work, so what it writes commits (or not) with the order. */
export type OrderWrittenListener = (uow: UnitOfWork, order: WrittenOrder) => Promise<void>;
