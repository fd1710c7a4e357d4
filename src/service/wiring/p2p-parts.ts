/** P2P built on the platform, the catalogue, the ledger and trading, each through P2P's own ports. */

import type { Database } from '../../shared/database.js';
import type { Accounts } from '../accounts/accounts.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Catalogue } from '../market/catalogue.js';
import { P2P } from '../p2p/p2p.js';
import type { SellerCopy } from '../p2p/ports.js';
import type { OwnedCopy } from '../platform/offer-types.js';
import { Platform } from '../platform/platform.js';
import type { Trading } from '../trading/trading.js';
import { cheapestOwnListing } from './catalogue-items.js';

/** What P2P is wired from. */
export interface P2PParts {
  db: Database;
  units: UnitOfWorkRunner;
  platform: Platform;
  catalogue: Catalogue;
  accounts: Accounts;
  trading: Trading;
}

/** Builds P2P, loads it, and makes trading hand it the orders of its listings. */
export async function openP2P(parts: P2PParts): Promise<P2P> {
  const { platform, trading } = parts;
  const p2p = new P2P({
    db: parts.db,
    units: parts.units,
    platform: {
      tradeProtectionMs: Platform.TRADE_PROTECTION_MS,
      async readInventory(steamId) {
        const read = await platform.inventories.read(steamId);
        return { proof: read.proof, copies: read.copies.map(sellerCopy) };
      },
      proofIn: (uow, steamId) => platform.inventories.proofIn(uow, steamId),
      async copyIn(uow, steamId, assetId) {
        const copy = await platform.inventories.copyIn(uow, steamId, assetId);
        return copy && sellerCopy(copy);
      },
      sendUserOffer: (uow, offer) =>
        platform.sendUserOffer(uow, {
          orderId: offer.orderId,
          fromSteamId: offer.fromSteamId,
          toSteamId: offer.toSteamId,
          items: [{ assetId: offer.assetId, itemKey: offer.itemKey }],
          sentAt: offer.sentAt,
        }),
      runDue: (now) => platform.runDue(now),
      onOfferClosed: (listener) => platform.onOfferClosed(listener),
    },
    shelf: {
      applyIn: (uow, changes) => parts.catalogue.applyIn(uow, changes),
      marketCents: (appId, name) => cheapestOwnListing(parts.catalogue, appId, name)?.priceCents ?? null,
    },
    payouts: parts.accounts.ledger,
    orders: {
      offerSent: (uow, sale) => trading.lifecycle.userOfferSent(uow, sale),
      sendFailed: (uow, sale) => trading.lifecycle.userSendFailed(uow, sale),
    },
  });
  await p2p.load();
  trading.userSales.use({
    isUserListing: (listing) => p2p.isUserListing(listing),
    bought: (uow, sale) => p2p.sales.bought(uow, sale),
  });
  return p2p;
}

function sellerCopy(copy: OwnedCopy): SellerCopy {
  return {
    assetId: copy.assetId,
    appId: copy.appId,
    marketHashName: copy.marketHashName,
    listingJson: copy.listingJson,
    revision: copy.revision,
  };
}
