/** The catalogue as other features read items from it: what an item is, and what the market asks for it. */
import type { Catalogue } from '../market/catalogue.js';
import { ALL_APP_IDS } from '../market/games.js';
import type { IndexedListing } from '../market/listing-index.js';
import type { ItemDescriptions } from '../platform/ports.js';

/** Live listings of one name looked at for the cheapest of the marketplace's own. */
const LOOK_AT = 50;

/**
 * The cheapest live listing of an item that the marketplace itself offers (P2P listings left out,
 * so a seller's own price never moves the market price), or undefined when none is live.
 */
export function cheapestOwnListing(
  catalogue: Catalogue,
  appId: number,
  name: string,
): IndexedListing | undefined {
  const page = catalogue.index.query({ appId, name, sort: 'price_asc', limit: LOOK_AT });
  return page.items.find((entry) => entry.listing.source !== 'p2p');
}

/** Items by exact name, described by the cheapest live listing of them in any game (CS2 first). */
export function catalogueItems(catalogue: Catalogue): ItemDescriptions {
  return {
    describe(name) {
      for (const appId of ALL_APP_IDS) {
        const entry = cheapestOwnListing(catalogue, appId, name);
        if (!entry) continue;
        const listing = entry.listing;
        return {
          appId,
          marketHashName: listing.market_hash_name,
          listingId: listing.id,
          listingJson: JSON.stringify(listing),
        };
      }
      return undefined;
    },
  };
}
