/** Instant Sell over the real parts: the simulated platform, the catalogue's market prices and the ledger. */
import type { Database } from '../../shared/database.js';
import type { UnitOfWorkRunner } from '../core/unit-of-work.js';
import type { Catalogue } from '../market/catalogue.js';
import { GAMES } from '../market/games.js';
import type { Platform } from '../platform/platform.js';
import { InstantSell } from '../sell/instant-sell.js';
import type { MarketPrices, SellFunds, SellPlatform } from '../sell/ports.js';
import { cheapestOwnListing } from './catalogue-items.js';

/** Builds Instant Sell on the real platform and catalogue; the bots buy items of the games that can be bought in. */
export function openInstantSell(parts: {
  db: Database;
  units: UnitOfWorkRunner;
  platform: Platform;
  catalogue: Catalogue;
  funds: SellFunds;
}): InstantSell {
  return new InstantSell({
    db: parts.db,
    units: parts.units,
    platform: sellPlatform(parts.platform),
    prices: catalogueMarketPrices(parts.catalogue),
    funds: parts.funds,
    appIds: GAMES.filter((g) => g.tradable).map((g) => g.appId),
  });
}

/** The platform as Instant Sell uses it: the seller's copies go to a bot in an offer the seller answers. */
export function sellPlatform(platform: Platform): SellPlatform {
  return {
    resolveTradeUrl: (url) => platform.resolveTradeUrl(url),
    async readInventory(steamId) {
      const read = await platform.inventories.read(steamId);
      return { proof: read.proof, copies: read.copies };
    },
    copyIn: (uow, steamId, assetId) => platform.inventories.copyIn(uow, steamId, assetId),
    canTrade: (uow, steamId) => platform.inventories.canTrade(uow, steamId),
    async requestItems(uow, offer) {
      const sent = await platform.sendUserOffer(uow, {
        orderId: offer.orderId,
        fromSteamId: offer.sellerSteamId,
        toSteamId: offer.botSteamId,
        items: offer.assetIds.map((assetId) => ({ assetId, itemKey: `${offer.orderId}:${assetId}` })),
        answeredBy: 'sender',
      });
      return { offerId: sent.offerId };
    },
    pendingOfferCount: (steamId, uow) => platform.pendingOfferCount(steamId, uow),
    onOfferClosed: (listener) =>
      platform.onOfferClosed((uow, event) =>
        listener(uow, {
          offerId: event.offerId,
          orderId: event.orderId,
          outcome: event.outcome,
          at: event.at,
        }),
      ),
  };
}

/** Market prices from the live catalogue: the cheapest listing the marketplace itself offers. */
export function catalogueMarketPrices(catalogue: Catalogue): MarketPrices {
  return {
    priceCents: (appId, name) => cheapestOwnListing(catalogue, appId, name)?.priceCents,
  };
}
