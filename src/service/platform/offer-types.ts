/** The shapes the platform exchanges with its callers: offer items, closed-offer events and read views. */
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { OfferOutcome, OfferState } from './offer-states.js';

/** What the platform sends: items of one order leaving the marketplace's bots for a recipient. */
export interface OfferItem {
  /** Opaque, chosen by the sender, unique per item (e.g. `${orderId}:${position}`). */
  itemKey: string;
  appId: number;
  marketHashName: string;
  listingId: string;
  /** The listing as it was bought (kept with the inventory copy). */
  listingJson: string;
}

/** An offer to send: one order's items for one recipient. */
export interface NewOffer {
  orderId: string;
  /** The recipient's 17-digit platform id. */
  steamId: string;
  items: OfferItem[];
}

/** One copy a user's own offer carries, and the key the sender chose for it. */
export interface UserOfferItem {
  /** A copy at home in the sender's inventory. */
  assetId: string;
  /** Opaque, chosen by the sender, unique per item (e.g. `${orderId}:${position}`). */
  itemKey: string;
}

/**
 * An offer a user sends from their own inventory: the copies leave the sender's inventory at once,
 * arrive in the recipient's on acceptance, and come back to the sender on a decline or an expiry.
 */
export interface NewUserOffer {
  /** What the offer delivers for (an order id, a sell order id); told back when it closes. */
  orderId: string;
  /** The sender's 17-digit platform id. */
  fromSteamId: string;
  /** The recipient's 17-digit platform id (a user or one of the marketplace's bots). */
  toSteamId: string;
  items: UserOfferItem[];
  /** When the user sent it (epoch ms, not after the unit of work's time), for a send that fell due earlier. @default uow.now */
  sentAt?: number;
  /**
   * Who answers the offer by their offers behaviour: the recipient (a buyer), or the sender (a
   * seller answering a bot's request for their items, as Instant Sell does). @default 'recipient'
   */
  answeredBy?: 'recipient' | 'sender';
}

/** What sending an offer returns; times are epoch ms on the service clock. */
export interface SentOffer {
  offerId: string;
  sentAt: number;
  expiresAt: number;
}

/** An offer that left `active`, or an accepted one that was rolled back. */
export interface OfferClosed {
  offerId: string;
  orderId: string;
  steamId: string;
  outcome: OfferOutcome;
  /** The user who sent it, or null for the marketplace's bots. */
  senderSteamId: string | null;
  /** Epoch ms on the service clock at which the step happened. */
  at: number;
  itemKeys: string[];
}

/** Called inside the unit of work that closes an offer; a throw rolls the close back with it. */
export type OfferListener = (uow: UnitOfWork, event: OfferClosed) => Promise<void>;

/** An offer as the sandbox shows it (ISO times). */
export interface OfferView {
  offer_id: string;
  order_id: string;
  state: OfferState;
  /** The user who sent it; null for the marketplace's bots. */
  from_steam_id: string | null;
  to_steam_id: string;
  sent_at: string;
  expires_at: string;
}

/** One copy of an item in a platform account, as the sandbox shows it. */
export interface InventoryItem {
  asset_id: string;
  /** Changes whenever the copy changes. */
  asset_revision: string;
  app_id: number;
  market_hash_name: string;
  listing_id: string;
  /** ISO time it arrived (offer accepted or sandbox grant). */
  acquired_at: string;
  /** The accepted offer that delivered it; null for a sandbox grant. */
  offer_id: string | null;
}

/** One copy at home in an account's inventory, as features read it (times in epoch ms). */
export interface OwnedCopy {
  assetId: string;
  steamId: string;
  appId: number;
  marketHashName: string;
  /** The listing the item was bought from (or its description was taken from, for a grant). */
  listingId: string;
  /** That listing's JSON: wear, float, stickers, image… of the copy. */
  listingJson: string;
  /** 32 hex characters; changes whenever the copy changes. */
  revision: string;
  offerId: string | null;
  acquiredAt: number;
}
