/** The catalogue as other features read items from it: what an item is, and what the market asks for it. */

import type { Listing } from '../../contract/listing.js';
import type { Database } from '../../shared/database.js';
import type { Catalogue } from './catalogue.js';
import { ALL_APP_IDS } from './games.js';
import type { IndexedListing } from './listing-index/listing-index.js';

/** An item as a listing of it describes it. */
export interface ItemDescription {
  appId: number;
  marketHashName: string;
  listingId: string;
  listingJson: string;
}

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

/**
 * Items by exact name: described by the cheapest live listing of them in any game (CS2 first), or
 * else by the latest listing of that name the event log still holds (an item listed in its
 * retention window but not now).
 */
export function catalogueItems(
  catalogue: Catalogue,
  db: Database,
): { describe(name: string): Promise<ItemDescription | undefined> } {
  return {
    async describe(name) {
      for (const appId of ALL_APP_IDS) {
        const entry = cheapestOwnListing(catalogue, appId, name);
        if (entry) return described(appId, entry.listing);
      }
      const [logged] = await db.read<{ app_id: number; listing: string }>(
        `SELECT app_id, listing FROM listing_events
         WHERE kind = 'new' AND json_extract_string(listing, '$.market_hash_name') = $name
           AND coalesce(json_extract_string(listing, '$.source'), 'platform') <> 'p2p'
         ORDER BY position DESC LIMIT 1`,
        { name },
      );
      return logged && described(Number(logged.app_id), JSON.parse(logged.listing) as Listing);
    },
  };
}

function described(appId: number, listing: Listing): ItemDescription {
  return {
    appId,
    marketHashName: listing.market_hash_name,
    listingId: listing.id,
    listingJson: JSON.stringify(listing),
  };
}
