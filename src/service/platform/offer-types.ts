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
  sent_at: string;
  expires_at: string;
}

/** One copy of an item in a platform account. */
export interface InventoryItem {
  asset_id: string;
  app_id: number;
  market_hash_name: string;
  listing_id: string;
  /** ISO time of the accepted offer that delivered it. */
  acquired_at: string;
  offer_id: string;
}
