/**
 * The features that need other features (trading, P2P, Instant Sell, webhooks), opened on each
 * other through the ports each declares. With `service.ts`, the only module that knows every feature.
 */
import type { Database } from '../shared/database.js';
import type { Accounts } from './accounts/accounts.js';
import type { AdjustableClock } from './core/clock.js';
import type { DueWork } from './core/due-work.js';
import type { UnitOfWorkRunner } from './core/unit-of-work.js';
import type { Catalogue } from './market/catalogue.js';
import { cheapestOwnListing } from './market/catalogue-items.js';
import { GAMES } from './market/games.js';
import { openP2P } from './p2p/p2p-feature.js';
import { Platform } from './platform/platform.js';
import { openInstantSell } from './sell/sell-feature.js';
import { openTrading } from './trading/trading-feature.js';
import type { WebhookOptions } from './webhooks/webhooks.js';
import { openWebhooks } from './webhooks/webhooks-feature.js';

/** What the features are opened on. */
export interface BaseParts {
  db: Database;
  units: UnitOfWorkRunner;
  clock: AdjustableClock;
  due: DueWork;
  accounts: Accounts;
  platform: Platform;
  catalogue: Catalogue;
}

/**
 * Opens trading, P2P, Instant Sell and webhooks in the order their due tasks run (orders, P2P
 * sales, sell orders, webhooks) and returns them with their plugins.
 */
export async function openFeatures(
  base: BaseParts,
  options: { sandbox?: boolean; webhooks?: WebhookOptions },
  onWebhookError: (error: unknown) => void,
) {
  const { db, units, clock, due, accounts, platform, catalogue } = base;
  const buyableAppIds = GAMES.filter((g) => g.tradable).map((g) => g.appId);
  const marketCents = (appId: number, name: string) => cheapestOwnListing(catalogue, appId, name)?.priceCents;
  const trading = await openTrading({
    db,
    units,
    clock,
    due,
    accounts,
    platform,
    buyableAppIds,
    listings: catalogue,
    funds: accounts.ledger,
    sandbox: options.sandbox ?? false,
  });
  const p2p = await openP2P({
    db,
    units,
    due,
    platform,
    tradeProtectionMs: Platform.TRADE_PROTECTION_MS,
    shelf: {
      applyIn: (uow, changes) => catalogue.applyIn(uow, changes),
      marketCents: (appId, name) => marketCents(appId, name) ?? null,
    },
    payouts: accounts.ledger,
    trading: trading.trading,
  });
  const sell = openInstantSell({
    db,
    units,
    due,
    platform,
    prices: { priceCents: marketCents },
    funds: accounts.ledger,
    incoming: accounts.incoming,
    appIds: buyableAppIds,
  });
  const webhooks = await openWebhooks({
    db,
    units,
    clock,
    due,
    orders: trading.trading,
    options: options.webhooks ?? {},
    onError: onWebhookError,
  });
  return {
    trading: trading.trading,
    p2p: p2p.p2p,
    webhooks: webhooks.webhooks,
    plugins: [trading.feature, p2p.feature, sell.feature, webhooks.feature],
  };
}
