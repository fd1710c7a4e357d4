/**
 * Listings users sell from their own inventories (P2P): trading charges the buyer and takes the
 * listing off the market as for any other, but sends no bot offer for it; the seller's own trade
 * offer delivers it, and a returned item never goes back on the market.
 */
import type { Listing } from '../../contract/listing.js';
import type { UnitOfWork } from '../core/unit-of-work.js';
import type { UserListings } from './ports.js';

const NONE: UserListings = {
  isUserListing: () => false,
  bought: async () => {
    throw new Error('no feature sells user listings');
  },
};

/** The feature that sells user listings, set once it exists (the composition root wires it). */
export class UserSales implements UserListings {
  private seller: UserListings = NONE;

  /** Sets the feature that owns user listings. */
  use(seller: UserListings): void {
    this.seller = seller;
  }

  isUserListing(listing: Listing): boolean {
    return this.seller.isUserListing(listing);
  }

  bought(
    uow: UnitOfWork,
    sale: { orderId: string; itemKey: string; listingId: string; buyerSteamId: string },
  ): Promise<void> {
    return this.seller.bought(uow, sale);
  }
}
